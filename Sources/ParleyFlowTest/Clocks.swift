import Foundation
import ParleyCore
import Synchronization

/// The virtual clock of a flow test: time moves only in `advance(to:)`, which wakes the
/// sleepers due by then and returns at once. Unlike `ManualClock` it does not yield to let
/// woken tasks run: the runner waits for the bot engine's exact idle after every move, so
/// yielding would only cost time.
public final class VirtualClock: ParleyClock {
    private let time: VirtualTime

    /// A clock standing at `start`.
    public init(start: Date) { time = VirtualTime(now: start) }

    public func now() -> Date { time.now }

    /// How many tasks sleep on this clock.
    public var sleeperCount: Int { time.sleeperCount }

    /// The earliest deadline of a sleeper, if any.
    public var nextDeadline: Date? { time.nextDeadline }

    public func sleep(until deadline: Date) async throws { try await time.sleep(until: deadline) }

    /// Sets the time to `target` (never backwards) and wakes every sleeper due by then,
    /// earliest first.
    public func advance(to target: Date) { time.wakeAll(dueBy: target) }
}

/// The clock of broadcast jobs in a flow test: it reads the test's virtual time, but a wait
/// (rate pacing, retry backoff) moves only the job's own time and returns at once.
///
/// Why: the engine counts a running broadcast job as work in flight, so a job pacing itself
/// on the test clock would keep the bot from ever being idle while the runner, waiting for
/// idle, never moves that clock. Pacing shapes throughput, not the conversation a flow test
/// checks; so a scheduled broadcast's messages all arrive at the instant it fires.
final class JobLocalClock: ParleyClock {
    private let base: any ParleyClock
    /// How far the jobs' waits have gone past the base clock.
    private let local = Mutex<Date?>(nil)

    /// Job time on top of `base`.
    init(base: any ParleyClock) { self.base = base }

    func now() -> Date {
        let now = base.now()
        return local.withLock { local in local.map { max($0, now) } ?? now }
    }

    func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        local.withLock { local in local = max(local ?? deadline, deadline) }
    }
}

/// Runs work with a wall-clock cap that holds even if the work ignores cancellation: the
/// caller gets nil at the cap, the work is cancelled and left to wind down on its own.
/// (A task group would wait for a stuck child; this must never hang.)
enum WallClockCap {
    private final class Race<Value: Sendable>: Sendable {
        struct State {
            var continuation: CheckedContinuation<Value?, Never>?
            var worker: Task<Void, Never>?
        }
        let state: Mutex<State>
        init(_ continuation: CheckedContinuation<Value?, Never>) { state = Mutex(State(continuation: continuation)) }

        /// Resumes the caller once with `value` (nil: the cap struck, so the work is cancelled).
        func finish(_ value: Value?) {
            let (continuation, worker) = state.withLock { state in (state.continuation.take(), state.worker.take()) }
            guard let continuation else { return }
            if value == nil { worker?.cancel() }
            continuation.resume(returning: value)
        }

        /// Keeps the work's task for cancelling, or cancels it at once if the cap already struck.
        func setWorker(_ worker: Task<Void, Never>) {
            let finished = state.withLock { state in
                if state.continuation == nil { return true }
                state.worker = worker
                return false
            }
            if finished { worker.cancel() }
        }
    }

    /// The work's result, or nil when `limit` passed first (timed by `watchdog`).
    static func run<Value: Sendable>(limit: Duration, watchdog: WallClockWatchdog,
                                     _ work: @escaping @Sendable () async -> Value) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let race = Race(continuation)
            let watch = watchdog.watch(limit: limit) { race.finish(nil) }
            race.setWorker(Task {
                let value = await work()
                watchdog.cancel(watch)
                race.finish(value)
            })
        }
    }
}

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
