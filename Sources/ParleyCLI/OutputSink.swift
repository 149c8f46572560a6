
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
