import Synchronization

/// One timer for the wall-clock caps of many tests: a single task sleeps until the earliest
/// cap and fires what has expired. A test costs an entry in a table instead of a timer of
/// its own (tests start in order with equal caps, so the timer rarely re-arms).
final class WallClockWatchdog: Sendable {
    private struct Entry {
        var deadline: ContinuousClock.Instant
        var fire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var timer: Task<Void, Never>?
        var armedFor: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// Calls `fire` once `limit` has passed, unless `cancel` is called with the returned id first.
    func watch(limit: Duration, fire: @escaping @Sendable () -> Void) -> UInt64 {
        let deadline = ContinuousClock.now + limit
        let id = state.withLock { state in
            state.nextID += 1
            state.entries[state.nextID] = Entry(deadline: deadline, fire: fire)
            return state.nextID
        }
        arm()
        return id
    }

    /// Forgets a watch (its work finished in time).
    func cancel(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// Stops the timer; pending watches never fire.
    func stop() {
        let timer = state.withLock { state in
            state.entries.removeAll()
            state.armedFor = nil
            return state.timer.take()
        }
        timer?.cancel()
    }

    /// Makes sure the timer sleeps until the earliest deadline (or not at all when none).
    private func arm() {
        let (old, deadline): (Task<Void, Never>?, ContinuousClock.Instant?) = state.withLock { state in
            guard let earliest = state.entries.values.map(\.deadline).min() else { return (nil, nil) }
            if let armed = state.armedFor, armed <= earliest, state.timer != nil { return (nil, nil) }
            state.armedFor = earliest
            return (state.timer.take(), earliest)
        }
        old?.cancel()
        guard let deadline else { return }
        let timer = Task { [weak self] in
            // A cap, not a wait for something: it only decides when to give up on a test.
            do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
            self?.fireExpired()
        }
        state.withLock { state in
            if state.armedFor == deadline && state.timer == nil { state.timer = timer } else { timer.cancel() }
        }
    }

    private func fireExpired() {
        let now = ContinuousClock.now
        let expired = state.withLock { state -> [Entry] in
            state.timer = nil
            state.armedFor = nil
            let expired = state.entries.filter { $0.value.deadline <= now }
            for id in expired.keys { state.entries.removeValue(forKey: id) }
            return Array(expired.values)
        }
        for entry in expired { entry.fire() }
        arm()
    }
}
