import Foundation

/// Runs a child process under a deadline and collects what it prints: the Matrix suites run
/// the independent checkers of `scripts/` (matrix-nio, vobject) this way.
public enum ProcessRunner {
    /// What a run gave back.
    public struct Result: Sendable {
        /// The exit status; -1 when the deadline killed the process.
        public var status: Int32
        /// Standard output (with standard error too, when they were merged).
        public var stdout: String
        /// Standard error (empty when merged into `stdout`).
        public var stderr: String
    }

    /// Runs `executable arguments…` in `directory`; kills it after `timeout`. With
    /// `mergingOutput`, standard error goes into `stdout` in the order it was written.
    public static func run(_ executable: String, _ arguments: [String], in directory: URL, timeout: Duration,
                           mergingOutput: Bool = false) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = mergingOutput ? out : Pipe()
        process.standardOutput = out
        process.standardError = err
        let (stdout, stderr) = (Collected(), Collected())
        out.fileHandleForReading.readabilityHandler = { stdout.append($0.availableData) }
        if !mergingOutput { err.fileHandleForReading.readabilityHandler = { stderr.append($0.availableData) } }
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
        for (pipe, collected) in mergingOutput ? [(out, stdout)] : [(out, stdout), (err, stderr)] {
            pipe.fileHandleForReading.readabilityHandler = nil
            collected.append(pipe.fileHandleForReading.readDataToEndOfFile())
        }
        return Result(status: timedOut ? -1 : process.terminationStatus, stdout: stdout.text, stderr: stderr.text)
    }

    /// Output collected from a pipe's handler thread.
    // @unchecked: every access holds the lock.
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
