import Foundation

// MARK: - The worker: persist, pick, send, retry

extension Outbox {
    func run() async {
        // Bounded by `running`: every round either sends, persists, or waits for a signal.
        while running {
            persistPending()
            let now = clock.now()
            releaseBlockedLanes(at: now)
            let batch = takeBatch(at: now)
            if batch.isEmpty {
                if !incoming.isEmpty || !completedIDs.isEmpty { continue }
                await waitForWork()
                continue
            }
            if configuration.concurrentLanes > 1, batch.count > 1 {
                await sendConcurrently(batch)
                continue
            }
            for (key, items) in batch {
                guard running else { break }
                await send(items, lane: key)
            }
        }
    }

    /// Sends the lanes of a round with up to `concurrentLanes` in flight: each lane's items
    /// still go one after another, and every lane is a different key, so lanes never share state.
    func sendConcurrently(_ batch: [(LaneKey, [OutboxItem])]) async {
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func startNext() {
                guard next < batch.count, running else { return }
                let (key, items) = batch[next]
                next += 1
                group.addTask { await self.send(items, lane: key) }
            }
            for _ in 0..<min(configuration.concurrentLanes, batch.count) { startNext() }
            while await group.next() != nil { startNext() }
        }
        // As in the one-at-a-time loop: lanes not started because the outbox stopped stay in
        // the store for the next start.
    }

    /// One transaction: the new items are written, the finished ones deleted.
    func persistPending() {
        guard !incoming.isEmpty || !completedIDs.isEmpty else { return }
        let inserting = incoming
        let deleting = completedIDs
        incoming.removeAll(keepingCapacity: true)
        completedIDs.removeAll(keepingCapacity: true)
        do {
            try store.commit(inserting: inserting, deleting: deleting)
        } catch {
            let failure = ParleyError.wrapping(error, as: .storage)
            for item in inserting { finish(item.id, .failure(failure), item: item) }
            return
        }
        for item in inserting { appendToLane(item) }
    }

    func appendToLane(_ item: OutboxItem) {
        let key = LaneKey(channel: item.operation.channel, priority: item.priority)
        var lane = lanes[key] ?? Lane()
        lane.items.append(item)
        lanes[key] = lane
        enqueueIfReady(key)
    }

    func enqueueIfReady(_ key: LaneKey) {
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
    func takeBatch(at now: Date) -> [(LaneKey, [OutboxItem])] {
        guard accountBlockedUntil == nil else { return [] }
        var batch: [(LaneKey, [OutboxItem])] = []
        var budget = configuration.maxBatch
        levels: for level in ready.indices {
            while budget > 0, readyHead[level] < ready[level].count {
                let key = ready[level][readyHead[level]]
                readyHead[level] += 1
                guard var lane = lanes[key] else { continue }
                lane.queued = false
                var taken: [OutboxItem] = []
                var stopAll = false
                while budget > 0, !lane.isEmpty {
                    if let until = rateLimitDelay(for: key.channel, at: now, lane: &lane) {
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
                lanes[key] = lane
                if !taken.isEmpty { batch.append((key, taken)) }
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

    /// Nil if a send on `channel` may go now (tokens taken); otherwise when to try again.
    /// Sets `accountBlockedUntil` when the account or global limit is what stops it.
    func rateLimitDelay(for channel: Channel, at now: Date, lane: inout Lane) -> Date? {
        let limits = configuration.rateLimits
        if let rate = limits.perChannel {
            var bucket = channelBuckets[channel] ?? TokenBucket(rate: rate)
            if let next = bucket.nextAvailable(at: now) {
                channelBuckets[channel] = bucket
                return next
            }
            channelBuckets[channel] = bucket
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
        channelBuckets[channel]?.take(at: now)
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

    /// Sends a lane's items in order. On a transient error the failed item and the rest go
    /// back to the front of the lane, which waits out the delay.
    func send(_ items: [OutboxItem], lane key: LaneKey) async {
        for (offset, original) in items.enumerated() {
            var item = original
            item.attempts += 1
            do {
                let result = try await perform(item.operation)
                completedIDs.append(item.id)
                finish(item.id, .success(result), item: item)
            } catch {
                let failure = ParleyError.wrapping(error, as: .serverError)
                if failure.isTransient, item.attempts < configuration.retry.maxAttempts, running {
                    let delay = configuration.retry.delay(afterAttempt: item.attempts, retryAfter: failure.retryAfter,
                                                          random: configuration.random())
                    let until = clock.now().addingTimeInterval(delay.timeInterval)
                    putBack([item] + items[(offset + 1)...], lane: key, until: until)
                    return
                }
                completedIDs.append(item.id)
                finish(item.id, .failure(failure), item: item)
            }
        }
        enqueueIfReady(key)
    }

    func putBack(_ items: [OutboxItem], lane key: LaneKey, until: Date) {
        var lane = lanes[key] ?? Lane()
        lane.items = items + lane.items[lane.head...]
        lane.head = 0
        lane.blockedUntil = until
        lanes[key] = lane
        blocked.insert(key)
        scheduleTimer(at: until)
    }

    func perform(_ operation: OutboxOperation) async throws -> OutboxResult {
        switch operation {
        case .message(let envelope):
            return .sent(try await transport.send(envelope))
        case .reaction(let emoji, let messageID, let channel, let added):
            try await transport.setReaction(emoji, on: messageID, in: channel, added: added)
            return .reacted
        }
    }

    func waitForWork() async {
        if wakePending {
            wakePending = false
            return
        }
        await withCheckedContinuation { wake = $0 }
        wakePending = false
    }

    /// Makes sure the worker wakes at `deadline` (one timer: the earliest one needed).
    func scheduleTimer(at deadline: Date) {
        if let current = timerDeadline, current <= deadline, timer != nil { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = Task { [clock] in
            do { try await clock.sleep(until: deadline) } catch { return }
            self.timerFired(deadline)
        }
    }

    func timerFired(_ deadline: Date) {
        if timerDeadline == deadline {
            timer = nil
            timerDeadline = nil
        }
        signal()
    }
}
