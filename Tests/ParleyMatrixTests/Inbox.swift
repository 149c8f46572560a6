import Foundation
import ParleyCore

/// Collects a transport's events so tests can wait for them with a timeout, without sleeping.
actor Inbox {
    private(set) var events: [TransportEvent] = []
    private var waiters: [UUID: (predicate: @Sendable ([TransportEvent]) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var finished = false

    /// Starts consuming `stream` in the background.
    static func start(_ stream: AsyncStream<TransportEvent>) -> Inbox {
        let inbox = Inbox()
        Task {
            for await event in stream { await inbox.append(event) }
            await inbox.finish()
        }
        return inbox
    }

    var messages: [Envelope] {
        events.compactMap { if case .message(let envelope) = $0 { return envelope }; return nil }
    }

    var reactions: [ReactionEvent] {
        events.compactMap { if case .reaction(let reaction) = $0 { return reaction }; return nil }
    }

    var memberships: [MembershipEvent] {
        events.compactMap { if case .membership(let change) = $0 { return change }; return nil }
    }

    /// Texts of the delivered messages, in order.
    var texts: [String] { messages.compactMap { $0.payload["text"]?.stringValue } }

    /// Waits until `predicate` holds for the events so far; false after `timeout`.
    func wait(timeout: Duration = .seconds(60), until predicate: @escaping @Sendable ([TransportEvent]) -> Bool) async -> Bool {
        if predicate(events) { return true }
        if finished { return false }
        let id = UUID()
        return await withCheckedContinuation { continuation in
            waiters[id] = (predicate, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    /// Waits until a message with `text` arrived.
    func waitForText(_ text: String, timeout: Duration = .seconds(60)) async -> Bool {
        await wait(timeout: timeout) { events in
            events.contains { if case .message(let envelope) = $0 { return envelope.payload["text"]?.stringValue == text }; return false }
        }
    }

    private func append(_ event: TransportEvent) {
        events.append(event)
        for (id, waiter) in waiters where waiter.predicate(events) {
            waiters[id] = nil
            waiter.continuation.resume(returning: true)
        }
    }

    private func finish() {
        finished = true
        for (_, waiter) in waiters { waiter.continuation.resume(returning: false) }
        waiters = [:]
    }

    private func expire(_ id: UUID) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
    }
}
