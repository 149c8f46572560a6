import Foundation
@testable import ParleyCore
import Testing

/// The outbox's send queue alone: lanes, ready lists, blocks, buckets and completions, driven
/// by the times given; no transport, no store, no clock, no tasks.
@Suite struct OutboxSendQueueTests {
    typealias Queue = Outbox.SendQueue
    typealias LaneKey = Outbox.LaneKey

    static let start = Date(timeIntervalSince1970: 1_000_000)

    static func message(to user: String, priority: SendPriority = .normal) -> OutboxItem {
        OutboxItem(operation: .message(OutgoingEnvelope(channel: .person(user), payload: TextContent("hi \(user)").encoded())),
                   priority: priority)
    }

    static func reaction(in user: String) -> OutboxItem {
        OutboxItem(operation: .reaction(emoji: "👍", messageID: "m1", channel: .person(user), added: true))
    }

    /// A queue holding `items` in their lanes, as after the store wrote them.
    static func queue(_ items: [OutboxItem], rateLimits: RateLimits = .unlimited, maxBatch: Int = 512) -> Queue {
        var queue = Queue(rateLimits: rateLimits, maxBatch: maxBatch)
        queue.submit(items, batch: 0, at: start)
        queue.appendToLanes(queue.takeIncoming())
        return queue
    }

    static func lanes(_ pick: Queue.Pick) -> [LaneKey] { pick.round.map(\.0) }
    static func ids(_ pick: Queue.Pick) -> [UUID] { pick.round.flatMap { $0.1.map(\.item.id) } }

    @Test func submittedItemsAreNumberedAndWaitForTheStore() {
        var queue = Queue(rateLimits: .unlimited, maxBatch: 512)
        let items = [Self.message(to: "bob"), Self.message(to: "carol")]
        queue.submit(items, batch: 7, at: Self.start)
        #expect(queue.count == 2 && queue.hasRowsToWrite && queue.hasWork)
        #expect(queue.takeRound(at: Self.start, concurrent: false).round.isEmpty, "not written yet")
        let written = queue.takeIncoming()
        #expect(written.map(\.item.sequence) == [1, 2])
        #expect(written.map(\.item.enqueuedAt) == [Self.start, Self.start])
        #expect(written.map { $0.slot?.batch } == [7, 7] && written.map { $0.slot?.index } == [0, 1])
        #expect(!queue.hasRowsToWrite && queue.incoming.isEmpty)
        queue.appendToLanes(written)
        #expect(queue.count == 2 && queue.hasWork)
        #expect(queue.takeSequence() == 3)
    }

    @Test func higherPrioritiesGoFirst() {
        let broadcast = Self.message(to: "carol", priority: .broadcast)
        let normal = Self.message(to: "bob")
        let interactive = Self.message(to: "dan", priority: .interactive)
        var queue = Self.queue([broadcast, normal, interactive])
        let pick = queue.takeRound(at: Self.start, concurrent: false)
        #expect(Self.ids(pick) == [interactive.id, normal.id, broadcast.id])
        #expect(pick.wakeAt == nil && queue.count == 0 && !queue.hasWork)
    }

    @Test func aChannelsItemsKeepTheirOrderAcrossRounds() {
        let items = (0..<3).map { _ in Self.message(to: "bob") }
        var queue = Self.queue(items, maxBatch: 2)
        let first = queue.takeRound(at: Self.start, concurrent: false)
        #expect(Self.ids(first) == [items[0].id, items[1].id])
        #expect(queue.takeRound(at: Self.start, concurrent: false).round.isEmpty, "the lane waits for its round")
        queue.laneDone(LaneKey(of: items[0]))
        #expect(Self.ids(queue.takeRound(at: Self.start, concurrent: false)) == [items[2].id])
    }

    @Test func reactionsHaveLanesOfTheirOwn() {
        let message = Self.message(to: "bob")
        let reaction = Self.reaction(in: "bob")
        var queue = Self.queue([reaction, message])
        let pick = queue.takeRound(at: Self.start, concurrent: false)
        #expect(Self.lanes(pick).map(\.isReaction) == [true, false])
        #expect(Set(Self.lanes(pick).map(\.channel)) == [.person("bob")])
    }

    @Test func aPutBackLaneIsSkippedUntilItsTimeAndKeepsItsOrder() {
        let bob = [Self.message(to: "bob"), Self.message(to: "bob")]
        var queue = Self.queue(bob)
        let first = queue.takeRound(at: Self.start, concurrent: false)
        #expect(Self.ids(first) == bob.map(\.id))
        let retryAt = Self.start.addingTimeInterval(5)
        queue.putBack(first.round[0].1, lane: first.round[0].0, until: retryAt)
        let carol = Self.message(to: "carol")
        queue.submit([carol], batch: 1, at: Self.start)
        queue.appendToLanes(queue.takeIncoming())
        #expect(queue.releaseBlocks(at: Self.start.addingTimeInterval(1)) == retryAt)
        #expect(Self.ids(queue.takeRound(at: Self.start.addingTimeInterval(1), concurrent: false)) == [carol.id])
        #expect(queue.releaseBlocks(at: retryAt) == nil)
        #expect(Self.ids(queue.takeRound(at: retryAt, concurrent: false)) == bob.map(\.id))
    }

    @Test func aLanePutBackWithoutATimeIsReadyAtOnce() {
        let item = Self.message(to: "bob")
        var queue = Self.queue([item])
        let first = queue.takeRound(at: Self.start, concurrent: false)
        queue.putBack(first.round[0].1, lane: first.round[0].0, until: nil)
        #expect(queue.releaseBlocks(at: Self.start) == nil)
        #expect(Self.ids(queue.takeRound(at: Self.start, concurrent: false)) == [item.id])
    }

    @Test func aChannelLimitBlocksOnlyItsLane() {
        let limits = RateLimits(perChannel: TokenBucket.Rate(perSecond: 1, burst: 1))
        let bob = [Self.message(to: "bob"), Self.message(to: "bob")]
        let carol = Self.message(to: "carol")
        var queue = Self.queue(bob + [carol], rateLimits: limits)
        let first = queue.takeRound(at: Self.start, concurrent: false)
        let nextToken = Self.start.addingTimeInterval(1)
        #expect(Self.ids(first) == [bob[0].id, carol.id])
        #expect(first.wakeAt == nextToken && queue.accountBlockedUntil == nil)
        queue.laneDone(first.round[1].0)
        #expect(queue.takeRound(at: Self.start.addingTimeInterval(0.5), concurrent: false).round.isEmpty)
        #expect(queue.releaseBlocks(at: nextToken) == nil)
        #expect(Self.ids(queue.takeRound(at: nextToken, concurrent: false)) == [bob[1].id])
    }

    @Test func theAccountLimitStopsEverySendAndKeepsTheLaneFirst() {
        let limits = RateLimits(perAccount: TokenBucket.Rate(perSecond: 1, burst: 1))
        let bob = Self.message(to: "bob")
        let carol = Self.message(to: "carol")
        let dan = Self.message(to: "dan")
        var queue = Self.queue([bob, carol, dan], rateLimits: limits)
        let first = queue.takeRound(at: Self.start, concurrent: false)
        let nextToken = Self.start.addingTimeInterval(1)
        #expect(Self.ids(first) == [bob.id])
        #expect(first.wakeAt == nextToken && queue.accountBlockedUntil == nextToken)
        #expect(!queue.isEmptyAndUnlimited)
        // Blocked: nothing goes, and the block is still on before its time.
        #expect(queue.takeRound(at: nextToken, concurrent: false).round.isEmpty)
        #expect(queue.releaseBlocks(at: Self.start.addingTimeInterval(0.5)) == nextToken)
        #expect(queue.releaseBlocks(at: nextToken) == nil && queue.accountBlockedUntil == nil)
        // Carol's lane kept its place ahead of Dan's.
        let second = queue.takeRound(at: nextToken, concurrent: false)
        #expect(Self.ids(second) == [carol.id] && second.wakeAt == nextToken.addingTimeInterval(1))
    }

    @Test func theGlobalLimitIsSharedAndStopsTheAccount() {
        let shared = RateLimiter(rate: TokenBucket.Rate(perSecond: 1, burst: 1))
        var alice = Self.queue([Self.message(to: "bob")], rateLimits: RateLimits(global: shared))
        let carol = Self.message(to: "carol")
        var other = Self.queue([carol], rateLimits: RateLimits(global: shared))
        #expect(alice.takeRound(at: Self.start, concurrent: false).round.count == 1)
        let refused = other.takeRound(at: Self.start, concurrent: false)
        #expect(refused.round.isEmpty && other.accountBlockedUntil == Self.start.addingTimeInterval(1))
        let later = Self.start.addingTimeInterval(1)
        #expect(other.releaseBlocks(at: later) == nil)
        #expect(Self.ids(other.takeRound(at: later, concurrent: false)) == [carol.id])
    }

    @Test func aLaneInFlightIsNotPickedAgainUntilItsRoundIsDone() {
        let bob = Self.message(to: "bob")
        let carol = Self.message(to: "carol")
        var queue = Self.queue([bob, carol])
        let first = queue.takeRound(at: Self.start, concurrent: true)
        #expect(Self.ids(first) == [bob.id], "one lane a round when rounds go concurrently")
        let bobAgain = Self.message(to: "bob")
        queue.submit([bobAgain], batch: 1, at: Self.start)
        queue.appendToLanes(queue.takeIncoming())
        #expect(Self.ids(queue.takeRound(at: Self.start, concurrent: true)) == [carol.id])
        #expect(queue.takeRound(at: Self.start, concurrent: true).round.isEmpty, "bob's round is in flight")
        queue.roundDone(lane: LaneKey(of: bob))
        queue.laneDone(LaneKey(of: bob))
        #expect(Self.ids(queue.takeRound(at: Self.start, concurrent: true)) == [bobAgain.id])
    }

    @Test func acceptedRowsWaitForTheNextWriteOrTheirBound() {
        var queue = Self.queue([])
        for _ in 1..<Outbox.SendQueue.acceptedBeforeDelete { queue.accepted(UUID()) }
        #expect(!queue.hasRowsToWrite && queue.hasRowsToDelete)
        queue.accepted(UUID())
        #expect(queue.hasRowsToWrite)
        #expect(queue.takeCompletedIDs().count == Outbox.SendQueue.acceptedBeforeDelete)
        #expect(!queue.hasRowsToDelete)
    }

    @Test func completionsWaitToBeDeletedAndStopEmptiesTheQueue() {
        let items = [Self.message(to: "bob"), Self.message(to: "carol")]
        var queue = Self.queue(items)
        let pick = queue.takeRound(at: Self.start, concurrent: false)
        queue.completed(items[0].id)
        #expect(queue.hasRowsToWrite && queue.hasWork)
        #expect(queue.takeCompletedIDs() == [items[0].id])
        #expect(!queue.hasRowsToWrite && queue.completedIDs.isEmpty)
        queue.laneDone(pick.round[0].0)
        queue.putBack(pick.round[1].1, lane: pick.round[1].0, until: Self.start.addingTimeInterval(5))
        let waiting = Self.message(to: "dan")
        queue.submit([waiting], batch: 1, at: Self.start)
        #expect(queue.count == 2)
        #expect(queue.removeAllItems().map(\.item.id) == [waiting.id, items[1].id])
        #expect(queue.count == 0 && !queue.hasWork && queue.releaseBlocks(at: Self.start) == nil)
    }

    @Test func recoveredItemsAreResentAndNumberedOnwards() {
        var queue = Queue(rateLimits: .unlimited, maxBatch: 512)
        var stored = Self.message(to: "bob")
        stored.sequence = 41
        queue.recover(stored)
        #expect(queue.takeSequence() == 42)
        let pick = queue.takeRound(at: Self.start, concurrent: false)
        let taken = pick.round[0].1[0]
        #expect(taken.slot == nil && taken.item.id == stored.id)
        guard case .message(let envelope) = taken.item.operation else { Issue.record("not a message"); return }
        #expect(envelope.isResend)
    }

    @Test func onlyAnEmptyUnlimitedQueueMayBeBypassed() {
        var queue = Queue(rateLimits: .unlimited, maxBatch: 512)
        #expect(queue.isEmptyAndUnlimited)
        queue.submit([Self.message(to: "bob")], batch: 0, at: Self.start)
        #expect(!queue.isEmptyAndUnlimited)
        let limited = Queue(rateLimits: RateLimits(perChannel: TokenBucket.Rate(perSecond: 5)), maxBatch: 512)
        #expect(!limited.isEmptyAndUnlimited)
    }
}
