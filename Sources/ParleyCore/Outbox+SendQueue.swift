import Foundation

extension Outbox {
    /// Items are ordered per channel and priority; reactions have lanes of their own, since
    /// messages go to the transport in batches and reactions one by one.
    struct LaneKey: Hashable {
        var channel: Channel
        var priority: SendPriority
        var isReaction: Bool

        init(of item: OutboxItem) {
            channel = item.operation.channel
            priority = item.priority
            if case .reaction = item.operation { isReaction = true } else { isReaction = false }
        }
    }

    /// The lanes of one round and the items taken from each, in order.
    typealias Round = [(LaneKey, [Queued])]

    /// The send queue's data and every rule about it, without I/O: items waiting to be
    /// written, the lanes (FIFO per channel, priority and kind), the ready lists the next
    /// round is picked from by priority, lanes and the account blocked until a time, the
    /// token buckets, lanes in flight, and the ids of accepted items whose rows are to be
    /// deleted. The actor owns one, changes it in place through these transitions, and does
    /// what they return (writes, sends, timers).
    struct SendQueue {
        struct Lane {
            var items: [Queued] = []
            var head = 0
            var blockedUntil: Date?
            /// Listed in `ready` (at most once).
            var queued = false
            var isEmpty: Bool { head >= items.count }

            /// Forgets the items taken: once they are most of the array (a lane that never
            /// drains), or all of it.
            mutating func dropTaken() {
                if head > 1024, head * 2 > items.count {
                    items.removeFirst(head)
                    head = 0
                } else if isEmpty {
                    items.removeAll(keepingCapacity: true)
                    head = 0
                }
            }
        }

        /// What a round takes: ready lanes and when the worker is to look again (a lane or
        /// the account that the rate limits blocked).
        struct Pick {
            var round: Round = []
            var wakeAt: Date?
        }

        /// Submitted items not yet written to the store (nor in a lane).
        private(set) var incoming: [Queued] = []
        /// Items that failed for good, whose rows are to be deleted before anything else is
        /// written (a restart must not send them after all).
        private(set) var completedIDs: [UUID] = []
        /// Accepted items whose rows are still to be deleted. They go with the next write of
        /// new items (a lone answer costs one commit, not one for its row and another to
        /// delete it), at `acceptedBeforeDelete`, or at stop. Until then a crash would resend
        /// them: a transport recognizes a resend by its client message id.
        private(set) var acceptedIDs: [UUID] = []
        /// Accepted rows kept before they are deleted on their own.
        static let acceptedBeforeDelete = 64
        /// Until when the account or global rate limit stops every send.
        private(set) var accountBlockedUntil: Date?
        private var lanes: [LaneKey: Lane] = [:]
        /// Per priority, the lanes with items to send, oldest first, from `readyHead` on.
        private var ready: [[LaneKey]] = Array(repeating: [], count: SendPriority.allCases.count)
        private var readyHead: [Int] = Array(repeating: 0, count: SendPriority.allCases.count)
        /// Lanes with a `blockedUntil`.
        private var blocked: Set<LaneKey> = []
        /// Lanes whose round is being sent (only when the transport sends channels concurrently).
        private var lanesInFlight: Set<LaneKey> = []
        private var nextSequence: Int64 = 1
        private var buckets: Buckets
        private let maxBatch: Int

        init(rateLimits: RateLimits, maxBatch: Int) {
            buckets = Buckets(limits: rateLimits)
            self.maxBatch = maxBatch
        }

        /// Items queued and not yet accepted (submitted, waiting or being retried).
        var count: Int { incoming.count + lanes.values.reduce(0) { $0 + $1.items.count - $1.head } }

        /// True when there are rows to write: items to insert or accepted ones to delete.
        var hasRowsToWrite: Bool {
            !incoming.isEmpty || !completedIDs.isEmpty || acceptedIDs.count >= Self.acceptedBeforeDelete
        }

        /// True when some row is to be deleted, however few (at stop).
        var hasRowsToDelete: Bool { !completedIDs.isEmpty || !acceptedIDs.isEmpty }

        /// True when the worker has something to do: rows to write or ready lanes.
        var hasWork: Bool {
            hasRowsToWrite || ready.indices.contains { readyHead[$0] < ready[$0].count }
        }

        /// True when a lone message may bypass the lanes: nothing queued, nothing limits it.
        var isEmptyAndUnlimited: Bool {
            incoming.isEmpty && lanes.isEmpty && accountBlockedUntil == nil && !buckets.limitsAnything
        }

        // MARK: - Queueing

        /// Numbers `items` in submission order, stamps them `now` and queues them for the
        /// store, their results going to `batch`.
        mutating func submit(_ items: [OutboxItem], batch: Int, at now: Date) {
            incoming.reserveCapacity(incoming.count + items.count)
            for (index, var item) in items.enumerated() {
                item.sequence = takeSequence()
                item.enqueuedAt = now
                incoming.append(Queued(item: item, slot: Slot(batch: batch, index: index)))
            }
        }

        /// The next sequence number (a lone message that bypasses the lanes takes one too).
        mutating func takeSequence() -> Int64 {
            defer { nextSequence += 1 }
            return nextSequence
        }

        /// Queues an item a previous run left in the store; nobody waits for it.
        mutating func recover(_ item: OutboxItem) {
            var item = item
            nextSequence = max(nextSequence, item.sequence + 1)
            // The previous run may have sent it and died before the answer.
            item.operation = item.operation.resent
            let queued = Queued(item: item, slot: nil)
            let key = LaneKey(of: queued.item)
            // In place: a copy of the lane would copy its item array on every append.
            lanes[key, default: Lane()].items.append(queued)
            enqueueIfReady(key)
        }

        /// The submitted items to write, handed over (they go to their lanes once written).
        mutating func takeIncoming() -> [Queued] {
            let items = incoming
            incoming.removeAll(keepingCapacity: true)
            return items
        }

        /// The ids of accepted items to delete from the store, handed over.
        mutating func takeCompletedIDs() -> [UUID] {
            let ids = completedIDs + acceptedIDs
            completedIDs.removeAll(keepingCapacity: true)
            acceptedIDs.removeAll(keepingCapacity: true)
            return ids
        }

        /// Appends written items to their lanes in order; a run of items for the same lane (a
        /// batch to one channel) costs one lane look-up, not three per item.
        mutating func appendToLanes(_ items: [Queued]) {
            var start = items.startIndex
            while start < items.endIndex {
                let key = LaneKey(of: items[start].item)
                var end = start + 1
                while end < items.endIndex, LaneKey(of: items[end].item) == key { end += 1 }
                lanes[key, default: Lane()].items.append(contentsOf: items[start..<end])
                enqueueIfReady(key)
                start = end
            }
        }

        /// Empties the queue (a stop): the items nobody will send, submitted ones first.
        mutating func removeAllItems() -> [Queued] {
            var removed = incoming
            incoming.removeAll()
            for lane in lanes.values { removed.append(contentsOf: lane.items[lane.head...]) }
            lanes.removeAll()
            ready = ready.map { _ in [] }
            readyHead = readyHead.map { _ in 0 }
            blocked.removeAll()
            return removed
        }

        /// Lists the lane in `ready` if it has items and is neither listed, blocked nor in
        /// flight; forgets it if it is empty.
        private mutating func enqueueIfReady(_ key: LaneKey) {
            // A lane whose round is in flight comes back when that round is applied.
            if !lanesInFlight.isEmpty, lanesInFlight.contains(key) { return }
            guard var lane = lanes[key] else { return }
            if lane.isEmpty {
                lanes.removeValue(forKey: key)
                return
            }
            guard !lane.queued, lane.blockedUntil == nil else { return }
            lane.queued = true
            lanes[key] = lane
            ready[key.priority.rawValue].append(key)
        }

        // MARK: - Blocks

        /// Lifts the blocks that ended by `now`; the earliest of those still on, if any.
        mutating func releaseBlocks(at now: Date) -> Date? {
            var wakeAt: Date?
            if let until = accountBlockedUntil {
                if until <= now { accountBlockedUntil = nil } else { wakeAt = until }
            }
            guard !blocked.isEmpty else { return wakeAt }
            for key in blocked {
                guard let until = lanes[key]?.blockedUntil else { blocked.remove(key); continue }
                if until <= now {
                    lanes[key]?.blockedUntil = nil
                    blocked.remove(key)
                    enqueueIfReady(key)
                } else {
                    wakeAt = min(wakeAt ?? until, until)
                }
            }
            return wakeAt
        }

        // MARK: - Picking a round

        /// Takes up to `maxBatch` items, highest priority first, FIFO within a lane, as rate
        /// limits allow: from every ready lane, or from one lane when rounds go concurrently
        /// (that lane then stays out of `ready` until its round is done, so its next items
        /// never overtake these). Lanes in the round are listed again once it is done.
        mutating func takeRound(at now: Date, concurrent: Bool) -> Pick {
            var pick = Pick()
            guard accountBlockedUntil == nil else { return pick }
            let maxLanes = concurrent ? 1 : Int.max
            var budget = maxBatch
            levels: for level in ready.indices {
                while budget > 0, readyHead[level] < ready[level].count {
                    let key = ready[level][readyHead[level]]
                    readyHead[level] += 1
                    guard lanes[key] != nil else { continue }
                    var taken: [Queued] = []
                    let limit = Self.take(from: &lanes[key, default: Lane()], channel: key.channel, at: now,
                                          budget: &budget, into: &taken, buckets: &buckets)
                    if !taken.isEmpty { pick.round.append((key, taken)) }
                    switch limit {
                    case .none: break
                    case .lane(let until):
                        blocked.insert(key)
                        pick.wakeAt = min(pick.wakeAt ?? until, until)
                    case .account(let until):
                        accountBlockedUntil = until
                        pick.wakeAt = min(pick.wakeAt ?? until, until)
                    }
                    if pick.round.count >= maxLanes { break levels }
                    if case .account = limit {
                        // The lane keeps its place at the head of `ready`.
                        if taken.isEmpty { readyHead[level] -= 1; lanes[key]?.queued = true }
                        break levels
                    }
                }
                compactReady(level)
            }
            if concurrent { for (key, _) in pick.round { lanesInFlight.insert(key) } }
            return pick
        }

        /// Moves items from the head of `lane` into `taken` while budget and rate limits allow;
        /// the limit that stopped it, if any (a channel's blocks the lane).
        private static func take(from lane: inout Lane, channel: Channel, at now: Date, budget: inout Int,
                                 into taken: inout [Queued], buckets: inout Buckets) -> Buckets.Limit? {
            lane.queued = false
            var limit: Buckets.Limit?
            while budget > 0, !lane.isEmpty {
                limit = buckets.acquire(for: channel, at: now)
                if case .lane(let until) = limit { lane.blockedUntil = until }
                if limit != nil { break }
                taken.append(lane.items[lane.head])
                lane.head += 1
                budget -= 1
            }
            lane.dropTaken()
            return limit
        }

        private mutating func compactReady(_ level: Int) {
            if readyHead[level] >= ready[level].count {
                ready[level].removeAll(keepingCapacity: true)
                readyHead[level] = 0
            } else if readyHead[level] > 1024, readyHead[level] * 2 > ready[level].count {
                ready[level].removeFirst(readyHead[level])
                readyHead[level] = 0
            }
        }

        // MARK: - Rounds done

        /// A round's results for `key` are being applied: the lane is no longer in flight.
        mutating func roundDone(lane key: LaneKey) {
            if !lanesInFlight.isEmpty { lanesInFlight.remove(key) }
        }

        /// Every item of the lane's round is done: the lane is listed again if it has more.
        mutating func laneDone(_ key: LaneKey) {
            enqueueIfReady(key)
        }

        /// An item failed for good: its row is to be deleted at the next write.
        mutating func completed(_ id: UUID) {
            completedIDs.append(id)
        }

        /// An item was accepted: its row is to be deleted, with the next write of new items.
        mutating func accepted(_ id: UUID) {
            acceptedIDs.append(id)
        }

        /// Puts `entries` back at the front of their lane (order holds), blocked until `until`
        /// when given.
        mutating func putBack(_ entries: [Queued], lane key: LaneKey, until: Date?) {
            var lane = lanes[key] ?? Lane()
            lane.items = entries + lane.items[lane.head...]
            lane.head = 0
            lane.blockedUntil = until
            lanes[key] = lane
            if until != nil {
                blocked.insert(key)
            } else {
                enqueueIfReady(key)
            }
        }
    }
}
