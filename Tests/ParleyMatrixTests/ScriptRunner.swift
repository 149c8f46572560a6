import Foundation
import TestSupport

/// Runs a checker of `scripts/` with the python of the Synapse venv (matrix-nio and vobject are
/// installed there by `scripts/synapse install`), under a deadline.
enum ScriptRunner {
    static let environment = ProcessInfo.processInfo.environment
    /// The repository root (this file is Tests/ParleyMatrixTests/ScriptRunner.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `PARLEY_MATRIX_PYTHON`, else the venv of `scripts/synapse` (`PARLEY_SYNAPSE_HOME` or its default).
    static var python: String {
        if let python = environment["PARLEY_MATRIX_PYTHON"] { return python }
        let home = environment["PARLEY_SYNAPSE_HOME"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/parley/synapse").path
        return home + "/venv/bin/python"
    }

    /// Runs `python scripts/<script> arguments…` in the repository root; kills it after `timeout`.
    static func run(_ script: String, _ arguments: [String], timeout: Duration) async throws -> ProcessRunner.Result {
        try await ProcessRunner.run(python, [root.appendingPathComponent("scripts").appendingPathComponent(script).path] + arguments,
                                    in: root, timeout: timeout)
    }
}
