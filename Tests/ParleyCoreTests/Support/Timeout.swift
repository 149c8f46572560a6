import Foundation

/// The test waited longer than its bound for something that should have happened.
struct TimeoutError: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "timed out after \(seconds) s" }
}

/// Runs `body`, failing with `TimeoutError` after `seconds` of real time. Every wait in these
/// tests goes through this, so a bug shows as a failure, never as a hang.
func withTimeout<T: Sendable>(_ seconds: Double = 30, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimeoutError(seconds: seconds) }
        return value
    }
}
