import Synchronization

/// Runs work with a wall-clock cap that holds even if the work ignores cancellation: the
/// caller gets nil at the cap, the work is cancelled and left to wind down on its own.
/// (A task group would wait for a stuck child; this must never hang.)
enum WallClockCap {
    private final class Race<Value: Sendable>: Sendable {
        struct State {
            var continuation: CheckedContinuation<Value?, Never>?
            var timer: Task<Void, Never>?
        }
        let state: Mutex<State>
        init(_ continuation: CheckedContinuation<Value?, Never>) { state = Mutex(State(continuation: continuation)) }

        /// Resumes the caller once; the loser of the race gets false. Stops the timer either way.
        func finish(_ value: Value?) -> Bool {
            let (continuation, timer) = state.withLock { state in (state.continuation.take(), state.timer.take()) }
            timer?.cancel()
            continuation?.resume(returning: value)
            return continuation != nil
        }

        /// Keeps the timer for cancelling, or cancels it at once if the work already finished.
        func setTimer(_ timer: Task<Void, Never>) {
            let finished = state.withLock { state in
                if state.continuation == nil { return true }
                state.timer = timer
                return false
            }
            if finished { timer.cancel() }
        }
    }

    /// The work's result, or nil when `limit` passed first.
    static func run<Value: Sendable>(limit: Duration, _ work: @escaping @Sendable () async -> Value) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let race = Race(continuation)
            let worker = Task { _ = race.finish(await work()) }
            race.setTimer(Task {
                // A cap, not a wait for something: it only decides when to give up.
                do { try await Task.sleep(for: limit) } catch { return }
                if race.finish(nil) { worker.cancel() }
            })
        }
    }
}
