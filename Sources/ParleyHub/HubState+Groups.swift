import ParleyCore

extension HubState {
    /// Fails with `notFound` naming the first unknown user.
    func requireUsers(_ ids: [String]) throws(ParleyError) {
        if let unknown = ids.first(where: { users[$0] == nil }) {
            throw ParleyError(.notFound, "no such user", context: ["user": unknown])
        }
    }

    /// The number of group `id`, or `notFound`.
    func groupIndex(_ id: String) throws(ParleyError) -> Int {
        guard let index = channelIndex[.group(id)] else {
            throw ParleyError(.notFound, "no such group", context: ["channel": Channel.group(id).target])
        }
        return index
    }

    /// Creates a group; every member is told it joined.
    mutating func createGroup(id: String, name: String?, members: [String], by: String?) throws(ParleyError) -> Int {
        guard !id.isEmpty else { throw ParleyError(.invalidArgument, "a group id must not be empty") }
        guard channelIndex[.group(id)] == nil else {
            throw ParleyError(.conflict, "group exists", context: ["channel": Channel.group(id).target])
        }
        try requireUsers(members + (by.map { [$0] } ?? []))
        let index = addChannel(ChannelState(key: .group(id), name: name, members: members))
        for member in channels[index].members.keys {
            yield(.membership(MembershipEvent(channel: .group(id), user: member, change: .joined, by: by)), to: member)
        }
        return index
    }

    /// Adds `user` to a group. The new member starts after the current seq (history is
    /// readable, catch-up is not replayed). Returns false if it was a member already.
    mutating func addMember(_ user: String, to id: String, by: String?) throws(ParleyError) -> Bool {
        try requireUsers([user])
        let index = try groupIndex(id)
        guard channels[index].members[user] == nil else { return false }
        channels[index].members[user] = channels[index].seq
        userChannels[user, default: []].append(index)
        broadcast(.membership(MembershipEvent(channel: .group(id), user: user, change: .joined, by: by)), in: index)
        return true
    }

    /// Removes `user` from a group (`left` if by itself or nobody, else `kicked`); the
    /// remaining members and the removed user are told. Returns false if not a member.
    mutating func removeMember(_ user: String, from id: String, by: String?) throws(ParleyError) -> Bool {
        let index = try groupIndex(id)
        guard channels[index].members.removeValue(forKey: user) != nil else { return false }
        userChannels[user]?.removeAll { $0 == index }
        let change: MembershipEvent.Change = (by == nil || by == user) ? .left : .kicked
        let event = TransportEvent.membership(MembershipEvent(channel: .group(id), user: user, change: change, by: by))
        broadcast(event, in: index)
        yield(event, to: user)
        return true
    }
}
