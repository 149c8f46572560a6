import ParleyCore
import ParleyHub

/// The embedded hub as a local user of a running host reaches it (the chat console, a
/// recording): its users, a connection as one of them, what a channel holds for one of them.
/// The hub's own type stays inside the hosting layer, so the CLI does not depend on it.
public struct LocalChat: Sendable {
    private let hub: Hub

    init(hub: Hub) { self.hub = hub }

    /// A connection to the hub as `user`.
    public func connect(user: String) throws -> any Transport {
        try hub.connect(user: user)
    }

    /// The profile of `id`, nil if the hub does not know the user.
    public func user(_ id: String) -> Profile? {
        hub.user(id)
    }

    /// Makes `profile` a user of the hub.
    public func addUser(_ profile: Profile) throws {
        try hub.addUser(profile)
    }

    /// The messages of `channel` as `user` names and sees it, oldest first.
    public func messages(in channel: Channel, seenBy user: String) throws -> [Envelope] {
        try hub.messages(in: channel, seenBy: user)
    }
}

extension RunningHost {
    /// The embedded hub for local users; nil when the host runs on another transport.
    public var localChat: LocalChat? { hub.map(LocalChat.init(hub:)) }
}
