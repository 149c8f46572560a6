import Foundation
import Synchronization

/// Lines typed (or piped) into an interactive command.
public protocol LineInput: Sendable {
    /// True when a person types at a terminal (prompts are shown); false for a pipe.
    var isTerminal: Bool { get }
    /// The next line without its newline, or nil at the end of input.
    func nextLine() async -> String?
}

/// The process's standard input. Each line is read on its own thread, so a blocking read
/// never holds one of the few threads the concurrency runtime has.
public struct StandardInput: LineInput {
    /// The longest line kept, in bytes; the rest of a longer line is read and dropped, so a
    /// pasted or piped gigabyte cannot fill memory (a bot refuses messages this long anyway).
    public var maxLineBytes: Int

    /// Reads the real stdin.
    public init(maxLineBytes: Int = 64 * 1024) {
        self.maxLineBytes = maxLineBytes
    }

    public var isTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    public func nextLine() async -> String? {
        let limit = maxLineBytes
        return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let thread = Thread { continuation.resume(returning: Self.readLine(maxBytes: limit, next: Self.readStandardInputByte)) }
            thread.start()
        }
    }

    /// One byte of the process's standard input, or `EOF`. Unbuffered: a person types slowly,
    /// and no buffer then holds input that a later reader would miss.
    static func readStandardInputByte() -> Int32 {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return Int32(byte) }
            if count < 0 && errno == EINTR { continue }
            return EOF
        }
    }

    /// The next line that `next` (a byte, or `EOF`) gives, without its newline (and a `\r`
    /// before it), at most `maxBytes` bytes of it; nil at the end of input.
    static func readLine(maxBytes: Int, next nextByte: () -> Int32) -> String? {
        var bytes: [UInt8] = []
        while true {
            let next = nextByte()
            if next == EOF { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if next == 0x0A { break }
            if bytes.count < maxBytes { bytes.append(UInt8(truncatingIfNeeded: next)) }
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Fixed lines, as a pipe would give them: for tests.
public final class ScriptedInput: LineInput {
    private let lines: Mutex<[String]>

    /// Input that yields `lines` in order, then ends.
    public init(_ lines: [String]) { self.lines = Mutex(lines) }

    public var isTerminal: Bool { false }

    public func nextLine() async -> String? {
        lines.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
