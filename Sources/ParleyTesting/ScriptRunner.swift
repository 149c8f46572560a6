import Foundation

/// Runs a checker of `scripts/` with the python of the Synapse venv (matrix-nio and vobject are
/// installed there by `scripts/synapse install`), under a deadline.
public enum ScriptRunner {
    /// Runs `python scripts/<script> arguments…` in the repository root; kills it after `timeout`.
    public static func run(_ script: String, _ arguments: [String], timeout: Duration,
                           mergingOutput: Bool = false) async throws -> ProcessRunner.Result {
        let root = TestFixtures.repository
        return try await ProcessRunner.run(TestSynapse.python, [root.appendingPathComponent("scripts/\(script)").path] + arguments,
                                           in: root, timeout: timeout, mergingOutput: mergingOutput)
    }
}
