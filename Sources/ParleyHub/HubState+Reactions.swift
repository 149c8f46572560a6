import ParleyCore

extension HubState {
    /// Where a reaction goes: the channel number and seq of a message `user` may see.
    /// `user` must be a member; the id must name a message of that channel.
    mutating func reactionTarget(messageID: String, in channel: Channel, user: String) throws(ParleyError) -> (index: Int, seq: Int64) {
        let index = try resolve(channel, for: user)
        guard let located = HubMessageID.parse(messageID), located.channel == index,
              located.seq >= 1, located.seq <= channels[index].committedSeq else {
            throw ParleyError(.notFound, "no such message", context: ["message": messageID, "channel": channel.target])
        }
        return (index, located.seq)
    }

    /// Adds or removes a reaction on a message kept in memory. Returns the message if the
    /// reactions changed (adding twice or removing what is not there changes nothing).
    mutating func setReaction(_ emoji: String, at seq: Int64, in index: Int, user: String, added: Bool) throws(ParleyError) -> HubMessage? {
        guard let position = channels[index].index(of: seq), channels[index].messages[position].isVisible(to: user) else {
            throw ParleyError(.notFound, "no such message", context: ["message": HubMessageID.make(channel: index, seq: seq)])
        }
        guard Self.apply(emoji, user: user, added: added, to: &channels[index].messages[position].reactions) else { return nil }
        return channels[index].messages[position]
    }

    /// Tells the members who can see `message` about a reaction change.
    mutating func announceReaction(_ emoji: String, on message: HubMessage, in index: Int, user: String, added: Bool, from transport: Int) {
        let key = channels[index].key
        let id = HubMessageID.make(channel: index, seq: message.seq)
        for member in channels[index].members.keys where message.isVisible(to: member) {
            let event = ReactionEvent(channel: key.channel(seenBy: member), messageID: id, emoji: emoji, user: user, added: added,
                                      messageSender: message.sender)
            yield(.reaction(event), to: member, excluding: transport)
        }
    }

    /// Applies a reaction change to a summary list (emojis in first-use order, users in
    /// reaction order). Returns false if nothing changed.
    static func apply(_ emoji: String, user: String, added: Bool, to reactions: inout [ReactionSummary]) -> Bool {
        let position = reactions.firstIndex { $0.emoji == emoji }
        if added {
            guard let position else {
                reactions.append(ReactionSummary(emoji: emoji, users: [user]))
                return true
            }
            guard !reactions[position].users.contains(user) else { return false }
            reactions[position].users.append(user)
            return true
        }
        guard let position, let userPosition = reactions[position].users.firstIndex(of: user) else { return false }
        reactions[position].users.remove(at: userPosition)
        if reactions[position].users.isEmpty { reactions.remove(at: position) }
        return true
    }
}
