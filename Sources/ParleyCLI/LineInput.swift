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
    /// Reads the real stdin.
    public init() {}

    public var isTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    public func nextLine() async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let thread = Thread { continuation.resume(returning: readLine(strippingNewline: true)) }
            thread.start()
        }
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
