import Foundation
import Synchronization
import Testing
@testable import ParleyFlowTest

@Suite struct VirtualClockTests {
    final class Woken: Sendable { let list = Mutex<[Int]>([]) }

    static let start = Date(timeIntervalSince1970: 1_796_119_200)

    /// Waits (bounded, without sleeping) until `count` tasks sleep on the clock.
    func sleepers(_ clock: VirtualClock, _ count: Int) async {
        for _ in 0..<100_000 {
            if clock.sleeperCount >= count { return }
            await Task.yield()
        }
    }

    @Test func advanceWakesWhatIsDueAndKeepsTheRest() async throws {
        let clock = VirtualClock(start: Self.start)
        let woken = Woken()
        let tasks = [30, 10, 20].map { seconds in
            Task {
                try await clock.sleep(until: Self.start.addingTimeInterval(TimeInterval(seconds)))
                woken.list.withLock { $0.append(seconds) }
            }
        }
        await sleepers(clock, 3)
        #expect(clock.nextDeadline == Self.start.addingTimeInterval(10))
        clock.advance(to: Self.start.addingTimeInterval(20))
        #expect(clock.now() == Self.start.addingTimeInterval(20))
        try await tasks[1].value
        try await tasks[2].value
        #expect(Set(woken.list.withLock { $0 }) == [10, 20])
        #expect(clock.nextDeadline == Self.start.addingTimeInterval(30))
        clock.advance(to: Self.start)  // never backwards
        #expect(clock.now() == Self.start.addingTimeInterval(20))
        tasks[0].cancel()
        await #expect(throws: CancellationError.self) { try await tasks[0].value }
        #expect(clock.nextDeadline == nil)
    }

    @Test func sleepingUntilThePastReturnsAtOnce() async throws {
        let clock = VirtualClock(start: Self.start)
        try await clock.sleep(until: Self.start)
        try await clock.sleep(until: Self.start.addingTimeInterval(-5))
        #expect(clock.nextDeadline == nil)
    }
}
