import Foundation
import ParleyCore
import Synchronization

/// Shows a transport's users and rooms under short names: `@alice-3f2a:localhost` as `alice`,
/// `!abc:localhost` as `helpdesk`. A bot written against short names (the embedded hub's ids,
/// a flow-test file's cast) then runs unchanged on a Matrix homeserver. Names it does not know
/// pass through as they are.
///
/// Inbound events are renamed (channel, sender, reply sender, reaction and membership users);
/// outbound sends, reactions and queries are renamed back. Profiles may come from a fixed list
/// keyed by short name (a test's cast), asking the server only for the others.
public final class RenamingTransport: Transport {
    /// The long (server) names of the short ones.
    public struct Names: Sendable, Hashable {
        /// Short user id → full user id.
        public var users: [String: String]
        /// Short group id → room id (or alias: enough for sending; inbound events carry ids).
        public var groups: [String: String]
        /// A short user id not in `users` is `@id:defaultServer` (and such an id, inbound, is
        /// shown as `id`); nil leaves unknown names as they are.
        public var defaultServer: String?

        /// A name table.
        public init(users: [String: String] = [:], groups: [String: String] = [:], defaultServer: String? = nil) {
            self.users = users
            self.groups = groups
            self.defaultServer = defaultServer
        }
    }

    /// The transport underneath.
    public let base: any Transport
    /// The table in use.
    public let names: Names
    private let shortUsers: [String: String]
    private let shortGroups: [String: String]
    private let fixedProfiles: [String: Profile]
    private let observe: @Sendable (TransportEvent) -> Void
    private let relay = Mutex<(task: Task<Void, Never>, backlog: EventBacklog)?>(nil)
    /// Renamed events the stream holds before the relay stops taking from `base`.
    let bufferLimit: Int

    /// Wraps `base`. `profiles` (short ids) answer profile queries before the server does;
    /// `observe` sees each renamed inbound event just before the stream yields it. The stream
    /// holds up to `bufferLimit` events not yet taken; then the relay waits, and `base` holds
    /// the rest (a `MatrixTransport` by not syncing), so nothing is dropped.
    public init(base: any Transport, names: Names, profiles: [Profile] = [],
                bufferLimit: Int = MatrixConfiguration.defaultEventBufferLimit,
                observe: @escaping @Sendable (TransportEvent) -> Void = { _ in }) {
        self.base = base
        self.names = names
        self.bufferLimit = bufferLimit
        shortUsers = Dictionary(names.users.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        shortGroups = Dictionary(names.groups.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        fixedProfiles = Dictionary(profiles.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.observe = observe
    }

    // MARK: - Renaming

    /// The short name of a server user id (itself when unknown).
    public func short(user id: String) -> String {
        if let short = shortUsers[id] { return short }
        // `@alice:server` on the default server is `alice`, unless `alice` names someone else.
        guard let server = names.defaultServer, id.hasPrefix("@"), id.hasSuffix(":" + server) else { return id }
        let local = String(id.dropFirst().dropLast(server.count + 1))
        return local.isEmpty || names.users[local] != nil ? id : local
    }

    /// The server user id of a short name (itself when unknown).
    public func long(user id: String) -> String {
        if let long = names.users[id] { return long }
        guard let server = names.defaultServer, !id.hasPrefix("@"), !id.isEmpty else { return id }
        return "@\(id):\(server)"
    }

    /// A server channel under short names.
    public func short(_ channel: Channel) -> Channel {
        switch channel.kind {
        case .person: Channel(kind: .person, id: short(user: channel.id))
        case .group: Channel(kind: .group, id: shortGroups[channel.id] ?? channel.id)
        case .local: channel
        }
    }

    /// A short-named channel as the server knows it.
    public func long(_ channel: Channel) -> Channel {
        switch channel.kind {
        case .person: Channel(kind: .person, id: long(user: channel.id))
        case .group: Channel(kind: .group, id: names.groups[channel.id] ?? channel.id)
        case .local: channel
        }
    }

    private func short(_ reply: ReplyReference?) -> ReplyReference? {
        guard var reply else { return nil }
        reply.sender = short(user: reply.sender)
        return reply
    }

    private func long(_ reply: ReplyReference?) -> ReplyReference? {
        guard var reply else { return nil }
        reply.sender = long(user: reply.sender)
        return reply
    }

    /// An inbound event under short names.
    public func short(_ event: TransportEvent) -> TransportEvent {
        switch event {
        case .message(var envelope):
            envelope.channel = short(envelope.channel)
            envelope.sender = short(user: envelope.sender)
            envelope.replyTo = short(envelope.replyTo)
            envelope.visibleTo = envelope.visibleTo?.map { short(user: $0) }
            return .message(envelope)
        case .reaction(var reaction):
            reaction.channel = short(reaction.channel)
            reaction.user = short(user: reaction.user)
            reaction.messageSender = reaction.messageSender.map { short(user: $0) }
            return .reaction(reaction)
        case .membership(var membership):
            membership.channel = short(membership.channel)
            membership.user = short(user: membership.user)
            membership.by = membership.by.map { short(user: $0) }
            return .membership(membership)
        case .connection:
            return event
        }
    }

    private func short(_ envelope: Envelope) -> Envelope {
        guard case .message(let renamed) = short(.message(envelope)) else { return envelope }
        return renamed
    }

    // MARK: - Transport

    public var userID: String { short(user: base.userID) }
    public var payloadLimit: Int { base.payloadLimit }
    public var concurrentSends: Int { base.concurrentSends }

    public func connect() async throws -> AsyncStream<TransportEvent> {
        let source = try await base.connect()
        let backlog = EventBacklog(limit: bufferLimit)
        let task = Task { [self] in
            for await event in source {
                let renamed = short(event)
                observe(renamed)
                backlog.push(renamed)
                await backlog.waitForRoom()
            }
            backlog.finish()
        }
        relay.withLock { old in
            old?.task.cancel()
            old = (task, backlog)
        }
        return backlog.stream()
    }

    /// Renamed events the stream holds (for tests of the bound).
    var bufferedEvents: Int { relay.withLock { $0?.backlog.count ?? 0 } }

    /// True while the relay waits for the consumer instead of taking from `base`.
    var isHoldingBase: Bool { relay.withLock { $0?.backlog.isHoldingProducer ?? false } }

    public func disconnect() async {
        await base.disconnect()
        relay.withLock { $0?.task.cancel() }
    }

    public func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        try await base.send(long(message))
    }

    public func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await base.sendBatch(messages.map { long($0) })
    }

    public func prepareSends(to channels: [Channel]) async {
        await base.prepareSends(to: channels.map { long($0) })
    }

    private func long(_ message: OutgoingEnvelope) -> OutgoingEnvelope {
        var renamed = message
        renamed.channel = long(message.channel)
        renamed.replyTo = long(message.replyTo)
        renamed.visibleTo = message.visibleTo?.map { long(user: $0) }
        return renamed
    }

    public func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await base.setReaction(emoji, on: messageID, in: long(channel), added: added)
    }

    public func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] {
        try await base.history(of: long(channel), after: seq, limit: limit).map { short($0) }
    }

    public func profiles(of userIDs: [String]) async throws -> [Profile] {
        let fixed = userIDs.compactMap { fixedProfiles[$0] }
        // Only ids the server can know are asked for; other short names are simply unknown.
        let asked = userIDs.filter { fixedProfiles[$0] == nil }.map { long(user: $0) }.filter { $0.hasPrefix("@") }
        var fetched: [Profile] = []
        if !asked.isEmpty {
            for var profile in try await base.profiles(of: asked) {
                profile.id = short(user: profile.id)
                fetched.append(profile)
            }
        }
        let byID = Dictionary((fixed + fetched).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return userIDs.compactMap { byID[$0] }
    }

    public func members(of channel: Channel) async throws -> [String] {
        try await base.members(of: long(channel)).map { short(user: $0) }
    }
}
