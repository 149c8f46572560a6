import ParleyCore
import Synchronization

/// The texts a test user's client received from others, in order, for a test to wait on:
/// set `take` as the client's event handler.
public final class ReceivedTexts: Sendable {
    private struct State {
        var texts: [String] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let user: String
    private let state = Mutex(State())

    /// A log of what reaches `user` (their own messages left out).
    public init(of user: String) { self.user = user }

    /// How many texts came so far.
    public var count: Int { state.withLock { $0.texts.count } }

    /// The texts from position `index` on.
    public func texts(from index: Int) -> [String] { state.withLock { Array($0.texts[min(index, $0.texts.count)...]) } }

    /// The client's event handler.
    public func take(_ batch: [ChatEvent]) {
        let ready = state.withLock { state in
            for event in batch {
                if case .message(let message) = event, message.sender != user, let text = (message.content as? TextContent)?.text {
                    state.texts.append(text)
                }
            }
            let count = state.texts.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once `count` texts came (bound it with `withTimeout`).
    public func waitFor(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.texts.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
