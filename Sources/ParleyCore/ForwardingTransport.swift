/// A transport that wraps another and passes on what it does not change itself: the account,
/// the limits, the connection, reactions, history, profiles and members. `send` and
/// `sendBatch` have no default here: a wrapper that watches or changes sends must decide for
/// both, or its batches would bypass it (or lose the base's batching).
public protocol ForwardingTransport: Transport {
    /// The wrapped transport.
    var base: any Transport { get }
}

extension ForwardingTransport {
    public var userID: String { base.userID }
    public var payloadLimit: Int { base.payloadLimit }
    public var concurrentSends: Int { base.concurrentSends }
    public func connect() async throws -> AsyncStream<TransportEvent> { try await base.connect() }
    public func disconnect() async { await base.disconnect() }
    public func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await base.setReaction(emoji, on: messageID, in: channel, added: added)
    }
    public func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] {
        try await base.history(of: channel, after: seq, limit: limit)
    }
    public func profiles(of userIDs: [String]) async throws -> [Profile] { try await base.profiles(of: userIDs) }
    public func members(of channel: Channel) async throws -> [String] { try await base.members(of: channel) }
    public func prepareSends(to channels: [Channel]) async { await base.prepareSends(to: channels) }
}
