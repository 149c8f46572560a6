import Foundation

/// What a subcommand runs with: where output goes, the environment for `${VAR}` in YAML, and
/// the directory relative paths are resolved against (paths are still shown as given).
public struct CommandContext: Sendable {
    /// Destination of stdout / stderr.
    public var output: any OutputSink
    /// Environment variables for `${VAR}` interpolation.
    public var environment: [String: String]
    /// Directory that relative paths are read from.
    public var currentDirectory: String
    /// Where interactive commands (`chat`, `run`) read lines from.
    public var input: any LineInput

    /// Creates a context; the defaults are the real process's.
    public init(output: any OutputSink = StandardOutputSink(),
                environment: [String: String] = ProcessInfo.processInfo.environment,
                currentDirectory: String = FileManager.default.currentDirectoryPath,
                input: any LineInput = StandardInput()) {
        self.output = output
        self.environment = environment
        self.currentDirectory = currentDirectory
        self.input = input
    }

    /// The file-system path for a path as the user wrote it.
    public func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return currentDirectory.hasSuffix("/") ? currentDirectory + path : currentDirectory + "/" + path
    }
}
