@testable import ParleyBots
import Testing

/// The lane's state machine alone: no runtime, no store, no tasks.
@Suite struct LaneTests {
    static func tickets(_ lane: inout Lane) -> [Int] {
        var tickets: [Int] = []
        // Bounded by the queue: each round takes one item; an empty queue ends the loop.
        while let item = lane.next() {
            if case .resolved(let ticket, _) = item { tickets.append(ticket) }
        }
        return tickets
    }

    @Test func aDrainStartsOnlyWhenNoneRunsAndEndsWithTheQueue() {
        var lane = Lane()
        #expect(lane.isEvictable)
        #expect(lane.push(.resolved(ticket: 1), stamp: 1) == .startDrain)
        #expect(lane.push(.resolved(ticket: 2), stamp: 2) == .queued)
        #expect(!lane.isEvictable)
        guard case .resolved(1, _)? = lane.next() else { Issue.record("first item"); return }
        #expect(lane.push(.resolved(ticket: 3), stamp: 3) == .queued)
        #expect(Self.tickets(&lane) == [2, 3])
        #expect(lane.isEvictable)
        #expect(lane.push(.joined, stamp: 4) == .startDrain)
    }

    @Test func theLastItemKeepsTheLaneDrainingUntilTheTaskAsksForMore() {
        var lane = Lane()
        _ = lane.push(.joined, stamp: 1)
        guard case .joined? = lane.next() else { Issue.record("the item"); return }
        // The item is being handled: the lane must not be evicted, and new work joins the
        // running task instead of starting a second one.
        #expect(!lane.isEvictable)
        #expect(lane.push(.resolved(ticket: 1), stamp: 2) == .queued)
        #expect(Self.tickets(&lane) == [1])
    }

    @Test func unhandledMessagesGoAheadOfQueuedWork() {
        var lane = Lane()
        #expect(lane.pushFirst([.resolved(ticket: 1)]) == .startDrain)
        var draining = Lane()
        _ = draining.push(.resolved(ticket: 3), stamp: 1)
        #expect(draining.pushFirst([.resolved(ticket: 1), .resolved(ticket: 2)]) == .queued)
        #expect(Self.tickets(&lane) == [1])
        #expect(Self.tickets(&draining) == [1, 2, 3])
    }

    @Test func pushStampsTheLaneForEviction() {
        var lane = Lane()
        _ = lane.push(.joined, stamp: 7)
        #expect(lane.lastUsed == 7)
        _ = lane.push(.joined, stamp: 9)
        #expect(lane.lastUsed == 9)
    }

    @Test func aLongQueueKeepsItsOrderAcrossCompaction() {
        var lane = Lane()
        var expected: [Int] = []
        // More items than the compaction threshold, pushed while the lane drains.
        for ticket in 0..<100 {
            _ = lane.push(.resolved(ticket: ticket), stamp: ticket)
            expected.append(ticket)
            if ticket % 3 == 0, case .resolved(let taken, _)? = lane.next() { #expect(taken == expected.removeFirst()) }
        }
        #expect(Self.tickets(&lane) == expected)
    }

    @Test func stateChangesWhileAMessageIsHandledAreWrittenWhenItIsDone() {
        var lane = Lane()
        var state = ConversationState()
        #expect(lane.cache(state) == .now)
        _ = lane.push(.joined, stamp: 1)
        _ = lane.next()
        #expect(lane.beginHandling("m1") == true)
        #expect(lane.isHandling("m1") && !lane.isHandling("m2"))
        state.ticket = 4
        #expect(lane.cache(state) == .afterHandling)
        #expect(lane.state == state)
        #expect(lane.finishHandling("m1") == true)
        #expect(!lane.isHandling("m1"))
        // Handled without a change: nothing to write.
        #expect(lane.beginHandling("m2") == true)
        #expect(lane.finishHandling("m2") == false)
        // Between messages a change is written at once.
        #expect(lane.cache(ConversationState()) == .now)
    }

    // MARK: - Illegal transitions: refused, the lane unchanged

    @Test func anIdleLaneHasNoDrainTaskToServe() {
        var lane = Lane()
        #expect(lane.next() == nil)
        #expect(lane.beginHandling("m1") == false)
        #expect(!lane.isHandling("m1"))
        #expect(lane.isEvictable)
        // The stray calls started nothing: the next push still starts the drain.
        #expect(lane.push(.joined, stamp: 1) == .startDrain)
    }

    @Test func oneMessageAtATime() {
        var lane = Lane()
        _ = lane.push(.joined, stamp: 1)
        _ = lane.next()
        #expect(lane.beginHandling("m1") == true)
        #expect(lane.beginHandling("m2") == false)
        #expect(lane.isHandling("m1") && !lane.isHandling("m2"))
    }

    @Test func finishingAMessageNotBeingHandledChangesNothing() {
        var lane = Lane()
        #expect(lane.finishHandling("m1") == false)
        _ = lane.push(.joined, stamp: 1)
        _ = lane.next()
        #expect(lane.beginHandling("m1") == true)
        _ = lane.cache(ConversationState())
        #expect(lane.finishHandling("m2") == false)
        #expect(lane.isHandling("m1"))
        #expect(lane.finishHandling("m1") == true)
    }
}
