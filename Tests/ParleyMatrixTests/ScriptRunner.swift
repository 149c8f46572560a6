import Foundation

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

    struct Result: Sendable {
        /// The exit status; -1 when the deadline killed the script.
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `python scripts/<script> arguments…` in the repository root; kills it after `timeout`.
    static func run(_ script: String, _ arguments: [String], timeout: Duration) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent("scripts").appendingPathComponent(script).path] + arguments
        process.currentDirectoryURL = root
        let (out, err) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        let (stdout, stderr) = (Collected(), Collected())
        out.fileHandleForReading.readabilityHandler = { stdout.append($0.availableData) }
        err.fileHandleForReading.readabilityHandler = { stderr.append($0.availableData) }
        let finished = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in finished.continuation.yield(); finished.continuation.finish() }
        try process.run()
        let timedOut = await withTaskGroup(of: Bool.self) { group in
            group.addTask { for await _ in finished.stream { return false }; return false }
            group.addTask { try? await Task.sleep(for: timeout); return true }
            let first = await group.next() ?? true
            group.cancelAll()
            return first
        }
        // SIGKILL: a child of a Swift process may have SIGTERM blocked (inherited signal mask).
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        for (pipe, collected) in [(out, stdout), (err, stderr)] {
            pipe.fileHandleForReading.readabilityHandler = nil
            collected.append(pipe.fileHandleForReading.readDataToEndOfFile())
        }
        return Result(status: timedOut ? -1 : process.terminationStatus, stdout: stdout.text, stderr: stderr.text)
    }

    /// Output collected from a pipe's handler thread.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()

        func append(_ chunk: Data) {
            lock.lock()
            data.append(chunk)
            lock.unlock()
        }

        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
