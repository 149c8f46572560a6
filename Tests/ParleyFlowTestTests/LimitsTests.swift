import Foundation
import ParleyCore
import Testing
@testable import ParleyFlowTest

/// A test never hangs: budgets and the wall-clock cap turn a stuck or runaway bot into a
/// clear failure.
@Suite struct LimitsTests {
    /// An engine that never becomes idle, to prove the cap holds whatever the engine does.
    struct NeverIdleHost: TestBotHost {
        struct Session: TestBotSession {
            func waitUntilIdle() async throws {
                await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            }
            func stop() async {}
        }
        func start(_ run: TestRun, in stage: any StageSession, transport: any Transport) async throws -> any TestBotSession { Session() }
    }

    @Test func wallClockCapFailsAStuckTestAtItsStep() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let failure = try await harness.failure(steps: ["- send: /ping", "- expect: { text: pong }"],
                                                limits: TestLimits(wallClock: .milliseconds(100)), host: NeverIdleHost())
        #expect(failure.line == TestFileHarness.firstStepLine)
        #expect(failure.details == ["the test took longer than its wall-clock cap of 0.1 seconds (the bot never became idle?)"])
    }

    @Test func stepBudgetFailsAtTheTestName() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let failure = try await harness.failure(steps: ["- send: /ping", "- expect: { text: pong }", "- expect: { none: true }"],
                                                limits: TestLimits(maxSteps: 2))
        #expect(failure.line == TestFileHarness.firstStepLine - 2)
        #expect(failure.step == "setup")
        #expect(failure.details == ["the test has 3 steps, more than the budget of 2"])
    }

    @Test func wakeupBudgetStopsARunawayAdvance() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        // Each `wait` is one wake-up; a budget of 1 cannot cover the wait plus the flow timeout.
        let failure = try await harness.failure(steps: ["- send: /later", "- send: /survey", "- advance: 10m"],
                                                limits: TestLimits(maxWakeupsPerAdvance: 1))
        #expect(failure.line == TestFileHarness.firstStepLine + 2)
        #expect(failure.details == ["more than 1 clock wake-ups in one advance (does the bot re-arm a timer forever?)"])
    }
}
