import Foundation

// MARK: - The worker: persist, pick, send, retry

extension Outbox {
    func run() async {
        let width = max(1, transport.concurrentSends)
        // Rounds in flight are children of this group: `stop()` waits for them through `worker`.
        await withDiscardingTaskGroup { group in
            // Bounded by the life cycle: every round either sends, persists, or waits for a signal.
            while machine.isRunning {
                await persistPending()
                // A commit off the actor may have let `stop()` begin.
                guard machine.isRunning else { break }
                let now = clock.now()
                releaseBlocks(at: now)
                let round = machine.hasRoom(forRoundsOf: width) ? takeRound(at: now, concurrent: width > 1) : []
                if round.isEmpty {
                    // Rows a commit under way will write are its, and it signals when done.
                    if queue.hasRowsToWrite && !persisting { continue }
                    await waitForWork()
                    continue
                }
                machine.roundStarted(inline: false)
                if width == 1 {
                    await send(round)
                    _ = machine.roundFinished(inline: false)
                    continue
                }
                group.addTask { await self.sendConcurrently(round) }
            }
        }
    }

    private func sendConcurrently(_ round: Round) async {
        await send(round)
        _ = machine.roundFinished(inline: false)
        signal()
    }

    /// Lifts the blocks that ended by `now`; the worker wakes when the next one ends.
    func releaseBlocks(at now: Date) {
        if let wakeAt = queue.releaseBlocks(at: now) { scheduleTimer(at: wakeAt) }
    }

    /// The next round's lanes and items (one lane when rounds go `concurrent`ly); the worker
    /// wakes when a lane or the account the rate limits blocked may send again.
    func takeRound(at now: Date, concurrent: Bool) -> Round {
        let pick = queue.takeRound(at: now, concurrent: concurrent)
        if let wakeAt = pick.wakeAt { scheduleTimer(at: wakeAt) }
        return pick.round
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
