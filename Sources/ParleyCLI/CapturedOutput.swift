import Synchronization

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
