import ParleyCore
import Synchronization

/// Who waits for a durable send's answer: one `send` call, or one slot of a `sendBatch`.
enum SendWaiter: Sendable {
    case single(CheckedContinuation<SendReceipt, any Error>)
    case batch(BatchAnswers, Int)

    func resume(_ result: Result<SendReceipt, ParleyError>) {
        switch self {
        case .single(let continuation): continuation.resume(with: result.mapError { $0 })
        case .batch(let answers, let slot): answers.answer(slot, result)
        }
    }
}

/// The results of one `sendBatch`, filled in as they come (some at once, the durable ones
/// after their COMMIT); the caller resumes when the last slot is filled.
final class BatchAnswers: Sendable {
    private struct State {
        var results: [Result<SendReceipt, ParleyError>?]
        var remaining: Int
        var continuation: CheckedContinuation<[Result<SendReceipt, ParleyError>], Never>?
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(results: Array(repeating: nil, count: count), remaining: count))
    }

    /// Fills `slot` (once; a second answer for the same slot is ignored).
    func answer(_ slot: Int, _ result: Result<SendReceipt, ParleyError>) {
        let done = state.withLock { state -> (CheckedContinuation<[Result<SendReceipt, ParleyError>], Never>, [Result<SendReceipt, ParleyError>])? in
            guard state.results[slot] == nil else { return nil }
            state.results[slot] = result
            state.remaining -= 1
            guard state.remaining == 0, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return (continuation, Self.collect(state.results))
        }
        if let (continuation, results) = done { continuation.resume(returning: results) }
    }

    /// Waits until every slot is filled.
    func all() async -> [Result<SendReceipt, ParleyError>] {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [Result<SendReceipt, ParleyError>]? in
                if state.remaining == 0 { return Self.collect(state.results) }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private static func collect(_ results: [Result<SendReceipt, ParleyError>?]) -> [Result<SendReceipt, ParleyError>] {
        results.map { $0 ?? .failure(ParleyError(.serverError, "no answer")) }
    }
}
