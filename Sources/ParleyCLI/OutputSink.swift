import Foundation
import Synchronization

/// The two output streams of a command.
public enum OutputStream: Sendable, Hashable {
    case standardOutput
    case standardError
}

/// Where a command's output goes: the process's streams, or a buffer in tests.
public protocol OutputSink: Sendable {
    /// Writes `text` as is (callers add the newline).
    func write(_ text: String, to stream: OutputStream)
}

extension OutputSink {
    /// Writes one line to standard output.
    func line(_ text: String) { write(text + "\n", to: .standardOutput) }
    /// Writes one line to standard error.
    func errorLine(_ text: String) { write(text + "\n", to: .standardError) }
}

/// The process's stdout and stderr.
public struct StandardOutputSink: OutputSink {
    /// Creates the sink.
    public init() {}

    public func write(_ text: String, to stream: OutputStream) {
        let handle = stream == .standardOutput ? FileHandle.standardOutput : FileHandle.standardError
        handle.write(Data(text.utf8))
    }
}

/// Collects everything written, for tests: each stream separately.
public final class CapturedOutput: OutputSink {
    private let buffers = Mutex<[OutputStream: String]>([:])

    /// Creates an empty capture.
    public init() {}

    public func write(_ text: String, to stream: OutputStream) {
        buffers.withLock { $0[stream, default: ""] += text }
    }

    /// Everything written to standard output so far.
    public var standardOutput: String { buffers.withLock { $0[.standardOutput] ?? "" } }
    /// Everything written to standard error so far.
    public var standardError: String { buffers.withLock { $0[.standardError] ?? "" } }
}
