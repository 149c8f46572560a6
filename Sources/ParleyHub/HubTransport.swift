import ParleyCore

/// One account's in-process connection to a `Hub`; made by `Hub.connect(user:)`.
///
/// Sends work without an open event stream (like an HTTP API). After the hub drops the
/// connection (a test fault), sends fail with `networkUnavailable` until `connect()`.
public final class HubTransport: Transport {
    public let userID: String
    public let payloadLimit: Int
    let hub: Hub
    /// Unique per hub: tells this transport's stream and sends apart from the user's others.
    let id: Int

    init(hub: Hub, id: Int, userID: String, payloadLimit: Int) {
        self.hub = hub
        self.id = id
        self.userID = userID
        self.payloadLimit = payloadLimit
    }

    /// Opens the event stream: `.connection(.connected)`, then the catch-up, then live events.
    /// Calling it again replaces the previous stream (which finishes).
    public func connect() async throws -> AsyncStream<TransportEvent> {
        try hub.subscribe(self)
    }

    /// Finishes the event stream (after a `.connection(.disconnected)` event).
    public func disconnect() async {
        hub.state.withLock { $0.unsubscribe(transport: id, user: userID) }
    }

    public func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        try await hub.send(message, via: self)
    }

    public func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try hub.setReaction(emoji, on: messageID, in: channel, added: added, via: self)
    }

    public func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] {
        try hub.history(of: channel, for: userID, after: seq, limit: limit)
    }

    public func profiles(of userIDs: [String]) async throws -> [Profile] {
        guard userIDs.count <= 100 else {
            throw ParleyError(.invalidArgument, "at most 100 profiles per request", context: ["count": String(userIDs.count)])
        }
        return hub.state.withLock { state in userIDs.compactMap { state.users[$0] } }
    }

    /// How many events the hub has put into this transport's event streams so far. A
    /// consumer that has taken as many events from its stream has seen everything the hub
    /// sent it: what lets a bot host tell "idle" without sleeping.
    public var deliveredEventCount: Int {
        hub.state.withLock { $0.eventsYielded[id] ?? 0 }
    }

    public func members(of channel: Channel) async throws -> [String] {
        try hub.members(of: channel, for: userID)
    }
}
