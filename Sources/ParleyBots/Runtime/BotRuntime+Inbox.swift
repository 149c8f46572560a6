import Foundation
import ParleyCore

/// The inbox: what the server delivered (messages, and the reactions the bot routes) is kept
/// in the engine store until it is handled, so a bot that dies (or stops) with messages
/// waiting for their turn handles them at its next start — the server does not deliver them
/// again. Handling a message writes the state it
/// changed and takes it out of the inbox in one write; a restart before that handles it
/// again from the state before it, its sends under the same names (`SendNames`), so what
/// did go out is not shown twice. Only with a persistent store.
extension BotRuntime {
    /// Keeps the messages of `batch` the bot will handle, and the reactions it routes (by their
    /// index in `batch`), before they are queued, in the order they came.
    func receive(_ batch: [ChatEvent], reactions: [Int: InboundReaction] = [:]) async {
        guard keepsInbox else { return }
        var received: [ReceivedMessage] = []
        if reactions.isEmpty {
            for case .message(let message) in batch where takes(message) { received.append(ReceivedMessage(message)) }
        } else {
            for (index, event) in batch.enumerated() {
                if case .message(let message) = event, takes(message) {
                    received.append(ReceivedMessage(message))
                } else if let reaction = reactions[index] {
                    received.append(reaction.received)
                }
            }
        }
        guard !received.isEmpty else { return }
        do {
            try await store.receive(received, bot: bot.id)
        } catch {
            log(.error, "cannot keep received messages", ["count": String(received.count), "error": "\(error)"])
        }
    }

    /// Whether `message` is for the bot to handle: not its own, not another bot's, not one
    /// already queued from the inbox.
    func takes(_ message: Message) -> Bool {
        message.sender != client.userID && !peers.contains(message.sender) && (replaying.isEmpty || !replaying.contains(message.id))
    }

    /// The reactions of `batch` the bot routes, by their index in it: a user's (not the bot's,
    /// not another bot's) added to one of the bot's own messages — the transport says whose
    /// the message is, or else the client's history does. Not a reaction taken back, and not
    /// one already queued from the inbox. Each gets its id here: the server's, or a new one.
    func takenReactions(_ batch: [ChatEvent]) -> [Int: InboundReaction] {
        var taken: [Int: InboundReaction] = [:]
        for (index, event) in batch.enumerated() {
            guard case .reaction(let reaction, let message) = event, reaction.added, reaction.user != client.userID,
                  !peers.contains(reaction.user) else { continue }
            guard (reaction.messageSender ?? message?.sender) == client.userID else {
                log(.debug, "ignored: a reaction to a message not the bot's", ["channel": reaction.channel.target, "user": reaction.user])
                continue
            }
            if let id = reaction.id, !replaying.isEmpty, replaying.contains(id) { continue }
            taken[index] = InboundReaction(reaction, id: reaction.id ?? "reaction-" + UUID().uuidString, at: clock.now())
        }
        return taken
    }

    /// The messages the previous run left unhandled (read before connecting, so the server
    /// delivering one again is recognised).
    func loadUnhandled() -> [ReceivedMessage] {
        guard keepsInbox else { return [] }
        do {
            let unhandled = try store.unhandled(bot: bot.id)
            replaying = Set(unhandled.map(\.id))
            return unhandled
        } catch {
            log(.error, "cannot read the unhandled messages", ["error": "\(error)"])
            return []
        }
    }

    /// Queues `unhandled` ahead of anything delivered since, each conversation in order.
    func queueFirst(_ unhandled: [ReceivedMessage]) {
        guard !unhandled.isEmpty else { return }
        log(.info, "handling messages received before the restart", ["count": String(unhandled.count)])
        let registry = client.configuration.registry
        for channel in Set(unhandled.map(\.channel)).sorted() {
            let items = unhandled.filter { $0.channel == channel }.map { entry in
                InboundReaction(entry).map(WorkItem.reaction) ?? .message(entry.message(registry: registry))
            }
            for _ in items { tracker.begin() }
            backlog += items.count
            if lanes[channel, default: Lane()].pushFirst(items) == .startDrain { startDrain(channel) }
        }
    }

    /// Writes what handling message `id` changed of the state and takes it out of the inbox,
    /// in one write. Once stopping, nothing is written: its sends may have failed on the
    /// closed client, so the next start handles it again.
    func finishHandling(_ id: String, in channel: Channel) {
        let changed = lanes[channel]?.finishHandling(id) ?? false
        if !replaying.isEmpty { replaying.remove(id) }
        guard !isStopping else { return }
        do {
            if changed, let state = lanes[channel]?.state {
                try store.save(state == ConversationState() ? nil : state, bot: bot.id, channel: channel.target,
                               handled: keepsInbox ? id : nil)
            } else if keepsInbox {
                try store.handled(id, bot: bot.id)
            }
        } catch {
            log(.error, "cannot save conversation state", ["channel": channel.target, "error": "\(error)"])
        }
    }

    /// The names of the sends answering `message` in `part` of its handling; nil without an
    /// inbox (nothing is handled twice, so random numbers do).
    func sendNames(for message: Message, part: String) -> SendNames? {
        sendNames(forReceived: message.id, part: part)
    }

    /// The names of the sends answering the message or reaction `id` in `part` of its handling.
    func sendNames(forReceived id: String, part: String) -> SendNames? {
        keepsInbox ? SendNames(bot: bot.id, message: id, part: part) : nil
    }
}
