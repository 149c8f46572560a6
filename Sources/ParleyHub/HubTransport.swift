import ParleyCore

/// One account's in-process connection to a `Hub`; made by `Hub.connect(user:)`.
///
/// Sends work without an open event stream (like an HTTP API). After the hub drops the
/// connection (a test fault), sends fail with `networkUnavailable` until `connect()`.
public final class HubTransport: Transport, BatchedEventSource {
    /// The user this transport acts for.
    public let userID: String
    /// The largest payload (canonical JSON bytes) a send may carry; larger ones fail with
    /// `messageTooLarge` and store nothing.
    public let payloadLimit: Int
    /// One round at a time: the hub stores a whole round in one transaction.
    public var concurrentSends: Int { 1 }
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

    /// Like `connect()`, with each element holding every event buffered since the consumer
    /// last took one. The buffer limit still counts events.
    public func connectBatched() async throws -> AsyncStream<[TransportEvent]> {
        try hub.subscribeQueue(self).stream()
    }

    /// Like `connectBatched()`, handing over the hub's queue for this stream itself (its
    /// buffer limit counts events pushed into it by the taker too).
    public func connectQueue() async throws -> BatchQueue<TransportEvent> {
        try hub.subscribeQueue(self)
    }

    /// Finishes the event stream (after a `.connection(.disconnected)` event) and, on a
    /// persistent hub, writes this user's delivery cursors.
    public func disconnect() async {
        hub.endStreams(of: userID, transports: [id], dropped: false)
    }

    /// Sends one message; idempotent by client message number. In memory the receipt means
    /// stored and delivered; on SQLite it comes after the COMMIT that made it durable.
    public func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        try await hub.send(message, via: self)
    }

    /// Sends messages in order with one result each, in one critical section and (when the
    /// hub is persistent) one group commit. After a transient failure in a channel, that
    /// channel's later messages answer `notSent` without being attempted. Runs on the caller's
    /// executor (the outbox's): in memory it never suspends, so a hop there and back would
    /// be all its async cost.
    public nonisolated(nonsending) func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await hub.sendBatch(messages, via: self)
    }

    /// Nothing to set up: a hub channel needs no room made or key shared before a send.
    public func prepareSends(to channels: [Channel]) async {}

    /// Adds or removes a reaction; members who can see the message get a reaction event.
    public func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try hub.setReaction(emoji, on: messageID, in: channel, added: added, via: self)
    }

    /// Stored messages this user may see, `seq > after`, oldest first, at most `limit`.
    public func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] {
        try hub.history(of: channel, via: self, after: seq, limit: limit)
    }

    /// Profiles of known users (at most 100 ids; unknown ones are left out).
    public func profiles(of userIDs: [String]) async throws -> [Profile] {
        guard userIDs.count <= 100 else {
            throw ParleyError(.invalidArgument, "at most 100 profiles per request", context: ["count": String(userIDs.count)])
        }
        return try hub.state.withLock { state throws(ParleyError) in
            try state.requireConnected(id, user: userID)
            return userIDs.compactMap { state.users[$0] }
        }
    }

    /// How many events the hub has put into this transport's event streams so far. A
    /// consumer that has taken as many events from its stream has seen everything the hub
    /// sent it: what lets a bot host tell "idle" without sleeping.
    public var deliveredEventCount: Int {
        hub.state.withLock { $0.eventsYielded[id] ?? 0 }
    }

    /// Members of a group this user belongs to, or the two users of a person channel.
    public func members(of channel: Channel) async throws -> [String] {
        try hub.members(of: channel, via: self)
    }
}
