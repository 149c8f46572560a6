import Foundation
import Testing
import ParleyCore
import ParleyTesting

@Suite struct ManualClockTests {
    @Test func advanceWakesSleepersInDeadlineOrderAtTheirDeadlines() async throws {
        let clock = ManualClock()
        let start = clock.now()
        let woken = Locked<[Int]>([])
        let times = Locked<[TimeInterval]>([])
        try await withTimeout {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, seconds) in [(3, 30.0), (1, 10.0), (2, 20.0)] {
                    group.addTask {
                        try await clock.sleep(for: .seconds(seconds))
                        let elapsed = clock.now().timeIntervalSince(start)
                        woken.mutate { $0.append(index) }
                        times.mutate { $0.append(elapsed) }
                    }
                }
                await clock.waitForSleepers(3)
                await clock.advance(by: .seconds(25))
                #expect(woken.value == [1, 2])
                #expect(times.value == [10, 20])
                #expect(clock.now().timeIntervalSince(start) == 25)
                #expect(clock.sleeperCount == 1)
                await clock.advance(by: .seconds(5))
                try await group.waitForAll()
            }
        }
        #expect(woken.value == [1, 2, 3])
    }

    @Test func aSleeperThatSleepsAgainWithinTheWindowIsWokenAgain() async throws {
        let clock = ManualClock()
        let ticks = Locked(0)
        try await withTimeout {
            let loop = Task {
                for _ in 0..<5 {
                    try await clock.sleep(for: .seconds(1))
                    ticks.mutate { $0 += 1 }
                }
            }
            await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(3))
            #expect(ticks.value == 3)
            await clock.advance(by: .seconds(10))
            try await loop.value
        }
        #expect(ticks.value == 5)
    }

    @Test func pastDeadlinesReturnAtOnceAndCancellationThrows() async throws {
        let clock = ManualClock()
        try await clock.sleep(until: clock.now().addingTimeInterval(-1))
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        try await withTimeout { await clock.waitForSleepers(1) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }
}
