import Synchronization

/// A test waited longer than its bound for something that should have happened.
public struct TimeoutError: Error, CustomStringConvertible {
    public var what: String
    public var seconds: Double

    public init(what: String, seconds: Double) {
        self.what = what
        self.seconds = seconds
    }

    public var description: String { "\(what) did not finish within \(seconds) s" }
}

/// Runs `body`, throwing `TimeoutError` after `seconds` of real time. Every wait in the
/// suites goes through this, so a bug shows as a failure, never as a hang.
///
/// The body runs in a task of its own and is cancelled at the deadline, but never waited
/// for: a task group would wait for it, and a body stuck on a continuation that ignores
/// cancellation would then hang the test past its bound, which is the bug this exists to
/// report. The body task inherits the test's task-local values, so what it records still
/// belongs to the test.
public func withTimeout<T: Sendable>(
    _ what: String = "the awaited operation", seconds: Double = 30, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = TimeoutRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let work = Task {
                do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
            }
            let timer = Task {
                try? await Task.sleep(for: .seconds(seconds))
                race.finish(.failure(TimeoutError(what: what, seconds: seconds)))
            }
            race.start(continuation, cancelling: [work, timer])
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The first of the body's result, the deadline and the caller's cancellation resumes the
/// caller; the others find it already resumed. Whatever finishes cancels both tasks.
private final class TimeoutRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var tasks: [Task<Void, Never>] = []
        var done = false
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>, cancelling tasks: [Task<Void, Never>]) {
        let early = state.withLock { state -> Result<T, any Error>? in
            state.tasks = tasks
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            return early
        }
        if let early {
            tasks.forEach { $0.cancel() }
            continuation.resume(with: early)
        }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
            guard !state.done else { return (nil, []) }
            state.done = true
            guard let continuation = state.continuation else {
                // Before `start` (a cancelled caller, or a body done at once): `start` delivers it.
                state.early = result
                return (nil, [])
            }
            state.continuation = nil
            return (continuation, state.tasks)
        }
        tasks.forEach { $0.cancel() }
        continuation?.resume(with: result)
    }
}
