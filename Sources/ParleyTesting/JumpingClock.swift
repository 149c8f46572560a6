import Foundation
import ParleyCore
import Synchronization

/// Virtual time that jumps: `sleep(until:)` moves `now` to the deadline (never back) and
/// returns at once. Backoff and pacing then cost no real time, and their virtual length
/// still shows in durations and message timestamps.
public final class JumpingClock: ParleyClock {
    private let current: Mutex<Date>

    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    public func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        current.withLock { if deadline > $0 { $0 = deadline } }
        await Task.yield()
    }
}
