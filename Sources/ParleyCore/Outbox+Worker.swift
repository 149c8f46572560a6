import Foundation

// MARK: - The worker: persist, pick, send, retry

extension Outbox {
    func run() async {
        let width = max(1, transport.concurrentSends)
        // Rounds in flight are children of this group: `stop()` waits for them through `worker`.
        await withDiscardingTaskGroup { group in
            // Bounded by the life cycle: every round either sends, persists, or waits for a signal.
            while machine.isRunning {
                persistPending()
                let now = clock.now()
                releaseBlockedLanes(at: now)
                let batch = machine.hasRoom(forRoundsOf: width) ? takeBatch(at: now, maxLanes: width == 1 ? .max : 1) : []
                if batch.isEmpty {
                    if !incoming.isEmpty || !completedIDs.isEmpty { continue }
                    await waitForWork()
                    continue
                }
                machine.roundStarted(inline: false)
                if width == 1 {
                    await send(batch)
                    _ = machine.roundFinished(inline: false)
                    continue
                }
                // One lane per round: the lane stays out of `ready` until its round is applied,
                // so its next items never overtake these.
                for (key, _) in batch { lanesInFlight.insert(key) }
                group.addTask { await self.sendConcurrently(batch) }
            }
        }
    }

    private func sendConcurrently(_ batch: [(LaneKey, [Queued])]) async {
        await send(batch)
        _ = machine.roundFinished(inline: false)
        signal()
    }

    /// One transaction: the new items are written, the finished ones deleted.
    func persistPending() {
        guard !incoming.isEmpty || !completedIDs.isEmpty else { return }
        let inserting = incoming
        let deleting = completedIDs
        incoming.removeAll(keepingCapacity: true)
        completedIDs.removeAll(keepingCapacity: true)
        do {
            // A store that keeps nothing is spared building the rows.
            if storeKeepsItems { try store.commit(inserting: inserting.map(\.item), deleting: deleting) }
        } catch {
            let failure = ParleyError.wrapping(error, as: .storage)
            for queued in inserting { finish(queued, .failure(failure)) }
            return
        }
        appendToLanes(inserting)
    }

    /// Appends items in order; a run of items for the same lane (a batch to one channel)
    /// costs one lane look-up, not three per item.
    func appendToLanes(_ items: [Queued]) {
        var start = items.startIndex
        while start < items.endIndex {
            let key = Self.laneKey(of: items[start].item)
            var end = start + 1
            while end < items.endIndex, Self.laneKey(of: items[end].item) == key { end += 1 }
            lanes[key, default: Lane()].items.append(contentsOf: items[start..<end])
            enqueueIfReady(key)
            start = end
        }
    }

    func appendToLane(_ queued: Queued) {
        let key = Self.laneKey(of: queued.item)
        // In place: a copy of the lane would copy its item array on every append.
        lanes[key, default: Lane()].items.append(queued)
        enqueueIfReady(key)
    }

    static func laneKey(of item: OutboxItem) -> LaneKey {
        if case .reaction = item.operation {
            return LaneKey(channel: item.operation.channel, priority: item.priority, isReaction: true)
        }
        return LaneKey(channel: item.operation.channel, priority: item.priority, isReaction: false)
    }

    func enqueueIfReady(_ key: LaneKey) {
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

    func releaseBlockedLanes(at now: Date) {
        if let until = accountBlockedUntil {
            if until <= now { accountBlockedUntil = nil } else { scheduleTimer(at: until) }
        }
        guard !blocked.isEmpty else { return }
        var earliest: Date?
        for key in blocked {
            guard let until = lanes[key]?.blockedUntil else { blocked.remove(key); continue }
            if until <= now {
                lanes[key]?.blockedUntil = nil
                blocked.remove(key)
                enqueueIfReady(key)
            } else {
                earliest = min(earliest ?? until, until)
            }
        }
        if let earliest { scheduleTimer(at: earliest) }
    }

    /// Picks up to `maxBatch` items, highest priority first, FIFO within a lane, as rate
    /// limits allow.
    func takeBatch(at now: Date, maxLanes: Int) -> [(LaneKey, [Queued])] {
        guard accountBlockedUntil == nil else { return [] }
        var batch: [(LaneKey, [Queued])] = []
        var budget = configuration.maxBatch
        levels: for level in ready.indices {
            while budget > 0, readyHead[level] < ready[level].count {
                let key = ready[level][readyHead[level]]
                readyHead[level] += 1
                guard lanes[key] != nil else { continue }
                var taken: [Queued] = []
                var stopAll = false
                takeItems(from: &lanes[key, default: Lane()], key: key, now: now, budget: &budget, taken: &taken, stopAll: &stopAll)
                if !taken.isEmpty { batch.append((key, taken)) }
                if batch.count >= maxLanes { break levels }
                if stopAll {
                    if taken.isEmpty { readyHead[level] -= 1; lanes[key]?.queued = true }
                    break levels
                }
            }
            compactReady(level)
        }
        // Lanes in the batch are re-queued after their sends (so their order holds).
        return batch
    }

    /// Moves items from the head of `lane` into `taken` while budget and rate limits allow.
    func takeItems(from lane: inout Lane, key: LaneKey, now: Date, budget: inout Int, taken: inout [Queued], stopAll: inout Bool) {
        lane.queued = false
        while budget > 0, !lane.isEmpty {
            if let until = rateLimitDelay(for: key.channel, at: now) {
                if let accountUntil = accountBlockedUntil {
                    stopAll = true
                    scheduleTimer(at: accountUntil)
                } else {
                    lane.blockedUntil = until
                    blocked.insert(key)
                    scheduleTimer(at: until)
                }
                break
            }
            taken.append(lane.items[lane.head])
            lane.head += 1
            budget -= 1
        }
        // Drop what was taken once it is most of the array (a lane that never drains).
        if lane.head > 1024, lane.head * 2 > lane.items.count {
            lane.items.removeFirst(lane.head)
            lane.head = 0
        } else if lane.isEmpty {
            lane.items.removeAll(keepingCapacity: true)
            lane.head = 0
        }
    }

    /// Nil if a send on `channel` may go now (tokens taken); otherwise when to try again.
    /// Sets `accountBlockedUntil` when the account or global limit is what stops it.
    func rateLimitDelay(for channel: Channel, at now: Date) -> Date? {
        let limits = configuration.rateLimits
        if let rate = limits.perChannel, let next = channelBuckets.withBucket(channel, rate: rate, at: now, { $0.nextAvailable(at: now) }) {
            return next
        }
        if var bucket = accountBucket, let next = bucket.nextAvailable(at: now) {
            accountBucket = bucket
            accountBlockedUntil = next
            return next
        }
        if let global = limits.global, let next = global.acquire(at: now) {
            accountBlockedUntil = next
            return next
        }
        accountBucket?.take(at: now)
        if let rate = limits.perChannel { channelBuckets.withBucket(channel, rate: rate, at: now) { $0.take(at: now) } }
        return nil
    }

    func compactReady(_ level: Int) {
        if readyHead[level] >= ready[level].count {
            ready[level].removeAll(keepingCapacity: true)
            readyHead[level] = 0
        } else if readyHead[level] > 1024, readyHead[level] * 2 > ready[level].count {
            ready[level].removeFirst(readyHead[level])
            readyHead[level] = 0
        }
    }

    func waitForWork() async {
        guard machine.workerWaits() else { return }
        await withCheckedContinuation { wake = $0 }
        machine.workerWoke()
    }

    /// Makes sure the worker wakes at `deadline` (one timer: the earliest one needed).
    func scheduleTimer(at deadline: Date) {
        guard machine.timerNeeded(at: deadline) else { return }
        timer?.cancel()
        timer = Task { [clock] in
            do { try await clock.sleep(until: deadline) } catch { return }
            self.timerFired(deadline)
        }
    }

    func timerFired(_ deadline: Date) {
        if machine.timerFired(deadline) { timer = nil }
        signal()
    }
}
