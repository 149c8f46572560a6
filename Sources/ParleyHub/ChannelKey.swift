import ParleyCore

/// The hub's own name for a conversation, the same for every member: a person channel is
/// the sorted pair of its two users, a group its id. Members see it as `Channel` values
/// (`.person(otherUser)` or `.group(id)`) through `channel(seenBy:)`.
struct ChannelKey: Hashable, Sendable {
    let kind: Channel.Kind
    let first: String
    let second: String

    init(kind: Channel.Kind, first: String, second: String) {
        self.kind = kind
        self.first = first
        self.second = second
    }

    /// The person channel of `a` and `b` (order does not matter).
    static func person(_ a: String, _ b: String) -> ChannelKey {
        a <= b ? ChannelKey(kind: .person, first: a, second: b) : ChannelKey(kind: .person, first: b, second: a)
    }

    static func group(_ id: String) -> ChannelKey {
        ChannelKey(kind: .group, first: id, second: "")
    }

    /// The key of `channel` as `user` names it (person channels are named by the other user).
    init(_ channel: Channel, seenBy user: String) {
        self = channel.kind == .person ? .person(user, channel.id) : ChannelKey(kind: channel.kind, first: channel.id, second: "")
    }

    /// The channel as `user` names it: for a person channel, the other user.
    func channel(seenBy user: String) -> Channel {
        switch kind {
        case .person: return .person(user == first ? second : first)
        default: return .group(first)
        }
    }
}
