/// A test waited longer than its bound for something that should have happened.
public struct TimeoutError: Error, CustomStringConvertible {
    public var what: String
    public var seconds: Double

    public init(what: String, seconds: Double) {
        self.what = what
        self.seconds = seconds
    }

    public var description: String { "\(what) did not finish within \(seconds) s" }
}

/// Runs `body`, throwing `TimeoutError` after `seconds` of real time. Every wait in the
/// suites goes through this, so a bug shows as a failure, never as a hang.
public func withTimeout<T: Sendable>(
    _ what: String = "the awaited operation", seconds: Double = 30, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimeoutError(what: what, seconds: seconds) }
        return value
    }
}
