import Synchronization

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
