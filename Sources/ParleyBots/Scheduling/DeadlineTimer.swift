import Foundation
import ParleyCore
import Synchronization

/// One-shot deadlines of the running conversations (flow timeouts, `wait`) on the injected
/// clock, kept in memory: a restart re-arms them from the conversations' stored state. One
/// timer task sleeps on the clock until the earliest deadline; `fireDue()` can also be
/// called directly (the idle check does), so work due at the clock's `now` never waits for
/// a task to be scheduled.
///
/// `CronScheduler` is the other thing that wakes on the clock, for recurring schedules: it
/// stores each schedule's last run, catches up on runs missed while the host was down and
/// awaits each run's handler before recording it, none of which a deadline needs.
final class DeadlineTimer: Sendable {
    typealias Job = @Sendable () -> Void

    private struct Entry {
        var deadline: Date
        var order: Int
        var job: Job
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextOrder = 0
        var timer: Task<Void, Never>?
        var armedFor: Date?
        var stopped = false
    }

    let clock: any ParleyClock
    private let state = Mutex(State())

    init(clock: any ParleyClock) { self.clock = clock }

    /// Runs `job` once `deadline` has passed. Returns an id for `cancel`.
    @discardableResult
    func schedule(at deadline: Date, _ job: @escaping Job) -> Int {
        let id = state.withLock { state in
            state.nextOrder += 1
            state.entries[state.nextOrder] = Entry(deadline: deadline, order: state.nextOrder, job: job)
            return state.nextOrder
        }
        rearm()
        return id
    }

    /// Forgets a scheduled job.
    func cancel(_ id: Int) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// True when a job is due at the clock's now.
    func hasDue() -> Bool {
        let now = clock.now()
        return state.withLock { $0.entries.values.contains { $0.deadline <= now } }
    }

    /// The earliest deadline, if any.
    var nextDeadline: Date? { state.withLock { $0.entries.values.map(\.deadline).min() } }

    /// Runs every job due now, earliest first. Returns how many ran.
    @discardableResult
    func fireDue() -> Int {
        let now = clock.now()
        let due = state.withLock { state -> [Entry] in
            let due = state.entries.values.filter { $0.deadline <= now }
                .sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
            for entry in due { state.entries.removeValue(forKey: entry.order) }
            return due
        }
        for entry in due { entry.job() }
        if !due.isEmpty { rearm() }
        return due.count
    }

    /// Stops the timer; jobs not yet due are dropped.
    func stop() {
        let timer = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            state.entries.removeAll()
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    /// Makes sure the timer sleeps until the earliest deadline.
    private func rearm() {
        let (old, deadline): (Task<Void, Never>?, Date?) = state.withLock { state in
            guard !state.stopped, let earliest = state.entries.values.map(\.deadline).min() else { return (nil, nil) }
            if let armed = state.armedFor, armed <= earliest, state.timer != nil { return (nil, nil) }
            let old = state.timer
            state.armedFor = earliest
            state.timer = nil
            return (old, earliest)
        }
        old?.cancel()
        guard let deadline else { return }
        let task = Task { [weak self, clock] in
            do { try await clock.sleep(until: deadline) } catch { return }
            guard let self else { return }
            self.state.withLock { state in
                state.timer = nil
                state.armedFor = nil
            }
            self.fireDue()
            self.rearm()
        }
        state.withLock { state in
            if state.armedFor == deadline && state.timer == nil { state.timer = task } else { task.cancel() }
        }
    }
}
