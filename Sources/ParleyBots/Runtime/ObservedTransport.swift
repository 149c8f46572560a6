import ParleyCore
import Synchronization

/// Wraps a bot's transport so the host can tell when every event the server sent has been
/// taken: it relays the event stream, counting events, and can put a marker into the relayed
/// stream behind them. With the server's own count (`deliveredEventCount`), "idle" needs no
/// sleeping.
final class ObservedTransport: Transport {
    /// The channel of marker events; never a real conversation.
    static let markerChannel = Channel(kind: .local, id: "parley.idle-marker")

    private struct State {
        var relayed = 0
        var output: AsyncStream<TransportEvent>.Continuation?
        var relay: Task<Void, Never>?
        var waiters: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter = 0
    }

    let inner: any Transport
    /// How many events the server has handed this connection (nil when it cannot say).
    let deliveredEventCount: (@Sendable () -> Int)?
    private let state = Mutex(State())

    init(_ inner: any Transport, deliveredEventCount: (@Sendable () -> Int)?) {
        self.inner = inner
        self.deliveredEventCount = deliveredEventCount
    }

    var userID: String { inner.userID }
    var payloadLimit: Int { inner.payloadLimit }
    var concurrentSends: Int { inner.concurrentSends }

    func connect() async throws -> AsyncStream<TransportEvent> {
        let source = try await inner.connect()
        let (stream, continuation) = AsyncStream.makeStream(of: TransportEvent.self, bufferingPolicy: .unbounded)
        let relay = Task { [weak self] in
            for await event in source {
                continuation.yield(event)
                self?.count()
            }
            continuation.finish()
            self?.releaseWaiters()
        }
        let old = state.withLock { state -> Task<Void, Never>? in
            let old = state.relay
            state.output = continuation
            state.relay = relay
            return old
        }
        old?.cancel()
        return stream
    }

    func disconnect() async {
        await inner.disconnect()
    }

    private func count() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.relayed += 1
            let ready = state.waiters.filter { $0.value.count <= state.relayed }
            for id in ready.keys { state.waiters.removeValue(forKey: id) }
            return ready.values.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    private func releaseWaiters() {
        let all = state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for waiter in all { waiter.resume() }
    }

    /// Returns once the relay has taken every event the server delivered so far (at once
    /// when the server cannot count, the stream has ended, or the task is cancelled).
    func waitUntilRelayed() async {
        guard let deliveredEventCount else { return }
        let target = deliveredEventCount()
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state in
                    if state.relayed >= target || state.output == nil || state.relay == nil || Task.isCancelled { return true }
                    state.waiters[id] = (target, continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// True when the server has delivered nothing the relay has not taken.
    var isCaughtUp: Bool {
        guard let deliveredEventCount else { return true }
        let target = deliveredEventCount()
        return state.withLock { $0.relayed >= target }
    }

    /// Puts marker `number` into the relayed stream, behind every event relayed so far.
    /// Returns false if there is no stream.
    func sendMarker(_ number: Int) -> Bool {
        let event = TransportEvent.membership(MembershipEvent(channel: Self.markerChannel, user: String(number), change: .joined))
        return state.withLock { state in
            guard let output = state.output else { return false }
            if case .terminated = output.yield(event) { return false }
            return true
        }
    }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { try await inner.send(message) }

    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await inner.sendBatch(messages)
    }

    func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await inner.setReaction(emoji, on: messageID, in: channel, added: added)
    }

    func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] {
        try await inner.history(of: channel, after: seq, limit: limit)
    }

    func profiles(of userIDs: [String]) async throws -> [Profile] { try await inner.profiles(of: userIDs) }

    func members(of channel: Channel) async throws -> [String] { try await inner.members(of: channel) }
}
