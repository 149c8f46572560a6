import Foundation
@testable import ParleyCore
import Testing

/// The outbox's life cycle alone: every event against every state, no transport, no clock.
@Suite struct OutboxStateMachineTests {
    typealias Machine = Outbox.StateMachine

    static func running(_ change: (inout Machine) -> Void = { _ in }) -> Machine {
        var machine = Machine()
        expectTrue(machine.start() == .startWorker)
        change(&machine)
        return machine
    }

    @Test func startRunsOnceAndStopReturnsToIdle() {
        var machine = Machine()
        #expect(!machine.isRunning && machine.state == .idle)
        expectTrue(machine.start() == .startWorker)
        #expect(machine.state == .running(.init()))
        expectTrue(machine.start() == .none)
        expectTrue(machine.stop() == .stopWorker)
        #expect(machine.state == .stopping(.init()))
        #expect(!machine.isRunning)
        expectTrue(machine.stop() == .none)
        machine.stopFinished()
        #expect(machine.state == .idle)
        expectTrue(machine.stop() == .none)
        expectTrue(machine.start() == .startWorker)
    }

    @Test func startDuringStopIsRefused() {
        var machine = Self.running()
        _ = machine.stop()
        expectTrue(machine.start() == .refuse)
        #expect(machine.state == .stopping(.init()))
    }

    @Test func aFailedLoadReturnsToIdle() {
        var machine = Self.running()
        machine.startFailed()
        #expect(machine.state == .idle)
        // Only a fresh start is undone: a running outbox with rounds stays as it is.
        var busy = Self.running { $0.roundStarted(inline: false) }
        busy.startFailed()
        #expect(busy.isRunning && busy.roundsInFlight == 1)
    }

    @Test func roundsAreCountedAgainstTheWidth() {
        var machine = Self.running()
        #expect(machine.hasRoom(forRoundsOf: 2))
        machine.roundStarted(inline: false)
        machine.roundStarted(inline: true)
        #expect(machine.roundsInFlight == 2 && machine.inlineRounds == 1)
        #expect(!machine.hasRoom(forRoundsOf: 2))
        expectTrue(!machine.roundFinished(inline: true))
        #expect(machine.hasRoom(forRoundsOf: 2))
        expectTrue(!machine.roundFinished(inline: false))
        #expect(machine.state == .running(.init()))
    }

    @Test func noRoundStartsOnceStopping() {
        var machine = Self.running()
        _ = machine.stop()
        #expect(!machine.hasRoom(forRoundsOf: 8))
        machine.roundStarted(inline: true)
        #expect(machine.roundsInFlight == 0)
        var idle = Machine()
        #expect(!idle.hasRoom(forRoundsOf: 8))
        idle.roundStarted(inline: false)
        #expect(idle.state == .idle)
    }

    @Test func theLastSubmitterRoundEndingAfterStopResumesTheStop() {
        var machine = Self.running {
            $0.roundStarted(inline: true)
            $0.roundStarted(inline: true)
            $0.roundStarted(inline: false)
        }
        _ = machine.stop()
        expectTrue(!machine.roundFinished(inline: false))
        expectTrue(!machine.roundFinished(inline: true))
        // Rounds in flight keep the stop from finishing.
        machine.stopFinished()
        #expect(!machine.isRunning && machine.inlineRounds == 1)
        expectTrue(machine.roundFinished(inline: true))
        machine.stopFinished()
        #expect(machine.state == .idle)
    }

    @Test func roundsNobodyCountedAreIgnored() {
        var machine = Self.running()
        expectTrue(!machine.roundFinished(inline: true))
        expectTrue(!machine.roundFinished(inline: false))
        #expect(machine.state == .running(.init()))
        // An inline round's end needs an inline round in flight, not just any round.
        machine.roundStarted(inline: false)
        expectTrue(!machine.roundFinished(inline: true))
        #expect(machine.roundsInFlight == 1)
        var idle = Machine()
        expectTrue(!idle.roundFinished(inline: true))
        #expect(idle.state == .idle)
    }

    @Test func aSignalResumesAWaitingWorkerOrIsKeptForItsNextWait() {
        var machine = Self.running()
        expectTrue(machine.workerWaits())
        expectTrue(machine.signal())
        machine.workerWoke()
        // Busy: the signal waits for the next wait, which then returns at once.
        expectTrue(!machine.signal())
        expectTrue(!machine.signal())
        expectTrue(!machine.workerWaits())
        expectTrue(machine.workerWaits())
    }

    @Test func signalsBetweenResumeAndRunAreCoveredByTheTurn() {
        var machine = Self.running()
        expectTrue(machine.workerWaits())
        expectTrue(machine.signal())
        expectTrue(!machine.signal())
        machine.workerWoke()
        expectTrue(machine.workerWaits())
    }

    @Test func stopWakesTheWaitingWorkerAndIdleNeedsNoSignal() {
        var machine = Self.running()
        expectTrue(machine.workerWaits())
        _ = machine.stop()
        expectTrue(machine.signal())
        machine.stopFinished()
        expectTrue(!machine.signal())
        expectTrue(!machine.workerWaits())
        #expect(machine.state == .idle)
    }

    @Test func theTimerKeepsTheEarliestDeadline() {
        let now = Date(timeIntervalSince1970: 1_000)
        var machine = Self.running()
        expectTrue(machine.timerNeeded(at: now.addingTimeInterval(10)))
        expectTrue(!machine.timerNeeded(at: now.addingTimeInterval(10)))
        expectTrue(!machine.timerNeeded(at: now.addingTimeInterval(20)))
        expectTrue(machine.timerNeeded(at: now.addingTimeInterval(5)))
        #expect(machine.timerDeadline == now.addingTimeInterval(5))
        // A replaced timer firing late is not the current one.
        expectTrue(!machine.timerFired(now.addingTimeInterval(10)))
        expectTrue(machine.timerFired(now.addingTimeInterval(5)))
        #expect(machine.timerDeadline == nil)
        expectTrue(machine.timerNeeded(at: now.addingTimeInterval(30)))
    }

    @Test func stopDropsTheTimerAndNoneStartsAfter() {
        let now = Date(timeIntervalSince1970: 1_000)
        var machine = Self.running()
        expectTrue(machine.timerNeeded(at: now))
        _ = machine.stop()
        #expect(machine.timerDeadline == nil)
        expectTrue(!machine.timerNeeded(at: now))
        expectTrue(!machine.timerFired(now))
        machine.stopFinished()
        expectTrue(!machine.timerNeeded(at: now))
        expectTrue(!machine.timerFired(now))
    }
}
