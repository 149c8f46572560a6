import Foundation
import ParleyCore

/// What tests look at to check "exactly once", order and storage.
extension Hub {
    /// Every stored message of `channel` as `user` names it (visibility lists ignored),
    /// oldest first. Unknown channels have none.
    public func messages(in channel: Channel, seenBy user: String) throws -> [Envelope] {
        let found: (index: Int, key: ChannelKey, messages: [HubMessage])? = state.withLock { state in
            let key = ChannelKey(channel, seenBy: user)
            guard let index = state.channelIndex[key] else { return nil }
            return (index, key, state.channels[index].messages)
        }
        guard let found else { return [] }
        let messages = try database?.messages(channel: found.index, after: 0, limit: .max) ?? found.messages
        return messages.map { $0.envelope(channelNumber: found.index, key: found.key, viewer: user) }
    }

    /// The reactions on a stored message, emojis in first-use order with their users in
    /// reaction order (`notFound` for an unknown id).
    public func reactions(on messageID: String, in channel: Channel, seenBy user: String) throws -> [ReactionSummary] {
        guard let message = try messages(in: channel, seenBy: user).first(where: { $0.id == messageID }) else {
            throw ParleyError(.notFound, "no such message", context: ["message": messageID, "channel": channel.target])
        }
        return message.reactions
    }

    /// How many stored messages carry `clientMessageID` in any channel (1 when exactly once).
    public func storedCount(of clientMessageID: UUID) throws -> Int {
        if let database { return try database.count(of: clientMessageID) }
        return state.withLock { state in
            state.channels.reduce(0) { count, channel in
                count + channel.messages.count { $0.clientMessageID == clientMessageID }
            }
        }
    }

    /// The last sequence number handed out in `channel` as `user` names it (0 if none).
    public func lastSeq(in channel: Channel, seenBy user: String) -> Int64 {
        state.withLock { state in
            let key = ChannelKey(channel, seenBy: user)
            return state.channelIndex[key].map { state.channels[$0].seq } ?? 0
        }
    }

    /// The delivery cursor of `user` in `channel`: the last seq it was given.
    public func cursor(of user: String, in channel: Channel) -> Int64? {
        state.withLock { state in
            let key = ChannelKey(channel, seenBy: user)
            return state.channelIndex[key].flatMap { state.channels[$0].members[user] }
        }
    }

    /// True while `user` has an open event stream.
    public func isOnline(_ user: String) -> Bool {
        state.withLock { !($0.subscribers[user]?.isEmpty ?? true) }
    }

    /// Idempotency receipts held in memory (at most `receiptWindow`, plus sends awaiting
    /// their commit).
    public var receiptsInMemory: Int {
        state.withLock { $0.receipts.count }
    }

    /// Number of channels (person and group) the hub knows.
    public var channelCount: Int {
        state.withLock { $0.channels.count }
    }
}
