import Foundation

/// The process's stdout and stderr.
public struct StandardOutputSink: OutputSink {
    /// Creates the sink.
    public init() {}

    public func write(_ text: String, to stream: OutputStream) {
        let handle = stream == .standardOutput ? FileHandle.standardOutput : FileHandle.standardError
        handle.write(Data(text.utf8))
    }
}
