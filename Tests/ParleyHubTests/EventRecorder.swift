import Foundation
import ParleyCore
import Synchronization

/// Consumes a transport's event stream in the background and lets a test wait (with a
/// timeout) until what it expects has arrived.
final class EventRecorder: Sendable {
    private struct Waiter {
        let id: Int
        let predicate: @Sendable (_ events: [TransportEvent], _ finished: Bool) -> Bool
        let continuation: CheckedContinuation<Void, any Error>
        /// Fails the wait after the timeout; cancelled when the wait succeeds.
        let timer: Task<Void, Never>
    }

    private struct State {
        var events: [TransportEvent] = []
        var finished = false
        var waiters: [Waiter] = []
        var nextID = 0
        /// Waits whose timer fired before they were registered.
        var expired: Set<Int> = []
    }

    private let state = Mutex(State())

    init(_ stream: AsyncStream<TransportEvent>) {
        Task { [self] in
            for await event in stream { record { $0.events.append(event) } }
            record { $0.finished = true }
        }
    }

    var events: [TransportEvent] { state.withLock { $0.events } }
    var isFinished: Bool { state.withLock { $0.finished } }

    /// The message envelopes received so far, in order.
    var messages: [Envelope] {
        events.compactMap { if case .message(let envelope) = $0 { return envelope } else { return nil } }
    }

    var reactions: [ReactionEvent] {
        events.compactMap { if case .reaction(let event) = $0 { return event } else { return nil } }
    }

    var memberships: [MembershipEvent] {
        events.compactMap { if case .membership(let event) = $0 { return event } else { return nil } }
    }

    /// Waits until at least `count` messages have arrived; returns them all.
    @discardableResult
    func waitForMessages(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [Envelope] {
        try await wait(timeout: timeout) { events, _ in
            events.count { if case .message = $0 { return true } else { return false } } >= count
        }
        return messages
    }

    /// Waits until the stream has finished.
    func waitForFinish(timeout: Duration = .seconds(10)) async throws {
        try await wait(timeout: timeout) { _, finished in finished }
    }

    /// Waits until `predicate` holds for the events so far; fails after `timeout`.
    func wait(timeout: Duration = .seconds(10), until predicate: @escaping @Sendable ([TransportEvent], Bool) -> Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let id = state.withLock { state -> Int in
                state.nextID += 1
                return state.nextID
            }
            let timer = Task { [self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                let expired = state.withLock { state -> Waiter? in
                    guard let position = state.waiters.firstIndex(where: { $0.id == id }) else {
                        state.expired.insert(id)
                        return nil
                    }
                    return state.waiters.remove(at: position)
                }
                expired?.continuation.resume(throwing: RecorderTimeout(events: events.count))
            }
            let outcome = state.withLock { state -> Bool? in
                if predicate(state.events, state.finished) { return true }
                if state.expired.remove(id) != nil { return false }
                state.waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation, timer: timer))
                return nil
            }
            switch outcome {
            case true?:
                timer.cancel()
                continuation.resume()
            case false?:
                continuation.resume(throwing: RecorderTimeout(events: events.count))
            case nil:
                break
            }
        }
    }

    private func record(_ change: (inout State) -> Void) {
        let ready = state.withLock { state -> [Waiter] in
            change(&state)
            let ready = state.waiters.filter { $0.predicate(state.events, state.finished) }
            state.waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } }
            return ready
        }
        for waiter in ready {
            waiter.timer.cancel()
            waiter.continuation.resume()
        }
    }
}

/// The expected events did not arrive in time.
struct RecorderTimeout: Error, CustomStringConvertible {
    let events: Int
    var description: String { "timed out after \(events) events" }
}
