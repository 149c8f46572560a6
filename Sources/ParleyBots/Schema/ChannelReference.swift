import ParleyCore
import YAMLCoding

/// A channel a bot file names outright (not through a template): a `to:` target, a broadcast
/// recipient, a hand-off queue, an `allow:` entry. A transport that maps names to its own
/// (Matrix rooms and users) checks each against its table, at the line that uses it.
public struct ChannelReference: Sendable, Hashable {
    /// What names the channel.
    public enum Use: String, Sendable, Hashable {
        /// `send: {to: …}`.
        case send
        /// A broadcast's `to:` list.
        case broadcast
        /// `handoff: {queue: …}`: the queue's channel is `group:<queue>`.
        case handoffQueue = "hand-off queue"
        /// `allow: {users, channels}`.
        case allow
    }

    /// The channel named.
    public var channel: Channel
    /// How it is named.
    public var use: Use
    /// Where.
    public var mark: Mark
}

extension BotDefinition {
    /// Every channel the file names literally, in file order of the actions (targets holding
    /// `{{…}}` are decided per message and left out).
    public var channelReferences: [ChannelReference] {
        var found: [ChannelReference] = []
        func add(_ target: Located<String>, _ use: ChannelReference.Use) {
            guard !target.value.contains("{{"), let channel = Channel(target: target.value) else { return }
            found.append(ChannelReference(channel: channel, use: use, mark: target.mark))
        }
        for user in allow?.users ?? [] where !user.value.contains("{{") {
            found.append(ChannelReference(channel: .person(user.value), use: .allow, mark: user.mark))
        }
        for channel in allow?.channels ?? [] { add(channel, .allow) }
        for item in allActionItems {
            switch item.action {
            case .send(let send, _): if let to = send.to { add(to, .send) }
            case .broadcast(let broadcast): for target in broadcast.to ?? [] { add(target, .broadcast) }
            case .handoff(let handoff):
                found.append(ChannelReference(channel: .group(handoff.queue.value), use: .handoffQueue, mark: handoff.queue.mark))
            default: break
            }
        }
        // A queue tickets escalate to is worked like the others: it needs its channel.
        for queue in handoff?.queues.entries ?? [] {
            if let to = queue.value.escalateTo { found.append(ChannelReference(channel: .group(to.value), use: .handoffQueue, mark: to.mark)) }
        }
        return found
    }
}
