import Foundation

/// The time source of everything that waits or stamps: outbox backoff, flow timeouts,
/// schedules, the hub's timestamps. Injected, so tests run on virtual time.
public protocol ParleyClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Suspends until `deadline` (returns at once if it has passed). Throws on cancellation.
    func sleep(until deadline: Date) async throws
}

extension ParleyClock {
    /// Suspends for `duration` from now.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now().addingTimeInterval(duration.timeInterval))
    }
}

extension Duration {
    /// The duration in seconds as a `TimeInterval`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

/// Wall-clock time.
public struct SystemClock: ParleyClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) }
    }
}
