import Foundation

/// The state of a transport connection.
public enum ConnectionState: String, Sendable, Hashable {
    case disconnected, connecting, connected, reconnecting
}

/// A reaction added or removed by `user` on a message.
public struct ReactionEvent: Sendable, Hashable {
    public var channel: Channel
    public var messageID: String
    public var emoji: String
    public var user: String
    public var added: Bool
    /// Who sent the message reacted to, when the server knows (the embedded hub always; a
    /// Matrix account for a message it recorded or could fetch): a bot answers reactions to
    /// its own messages only.
    public var messageSender: String?
    /// The reaction event's own id, when the server gives one (a Matrix event id): the same
    /// event delivered twice has the same id.
    public var id: String?

    public init(channel: Channel, messageID: String, emoji: String, user: String, added: Bool,
                messageSender: String? = nil, id: String? = nil) {
        self.channel = channel
        self.messageID = messageID
        self.emoji = emoji
        self.user = user
        self.added = added
        self.messageSender = messageSender
        self.id = id
    }
}

/// Someone joined or left a group (including this account being invited, joining or kicked).
public struct MembershipEvent: Sendable, Hashable {
    public enum Change: String, Sendable, Hashable { case joined, left, invited, kicked }
    public var channel: Channel
    public var user: String
    public var change: Change
    /// Who caused it (the inviter, the kicker), when known.
    public var by: String?

    public init(channel: Channel, user: String, change: Change, by: String? = nil) {
        self.channel = channel
        self.user = user
        self.change = change
        self.by = by
    }
}

/// What a transport delivers to its account.
public enum TransportEvent: Sendable, Hashable {
    case message(Envelope)
    case reaction(ReactionEvent)
    case membership(MembershipEvent)
    case connection(ConnectionState)
}

/// One account's connection to an IM server: the embedded hub or a Matrix homeserver.
///
/// The core SDK (`ChatClient`) talks to servers only through this protocol. Implementations
/// map server errors to `ParleyError` codes (`rateLimited` with `retryAfter`, `notFound`,
/// `permissionDenied`, `networkUnavailable`, …) so retries are decided in one place.
public protocol Transport: Sendable {
    /// The account this transport acts for.
    var userID: String { get }
    /// The largest encoded message (canonical JSON bytes of the payload) the server takes.
    var payloadLimit: Int { get }
    /// How many channels the outbox sends to at once. 1: one round at a time, each round one
    /// `sendBatch` of many channels (the in-process hub commits a round at once). More: up to
    /// that many `sendBatch` calls of one channel each in flight, a channel's next round
    /// starting when its last one ends, so a slow channel never holds up the others (a
    /// homeserver persists rooms independently). A wrapper forwards its base's value.
    var concurrentSends: Int { get }

    /// Connects and returns the event stream. Messages missed while offline are delivered
    /// first (catch-up), then live events. The stream finishes on `disconnect()`.
    func connect() async throws -> AsyncStream<TransportEvent>
    func disconnect() async

    /// Sends a message. Idempotent by `clientMessageID`: a resend returns the first receipt.
    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt
    /// Sends messages in the order given, one result each (the outbox calls this with up to a
    /// few hundred at a time, so a server can take them in one round trip or one commit).
    /// After a transient failure in a channel, that channel's later messages must not be
    /// attempted: they are answered `notSent`, so a retry keeps their order. No default, so a
    /// wrapper cannot silently lose its base's batching: `sendEachInOrder` sends one by one.
    /// Called on the caller's executor (the outbox's actor): a transport that answers without
    /// suspending (the in-process hub) then costs no executor hop there and back; one that
    /// does real I/O may be declared without `nonisolated(nonsending)` (it then runs off the
    /// caller's actor).
    nonisolated(nonsending) func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>]
    /// Adds or removes this account's `emoji` reaction on a message. Adding twice is a no-op.
    func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws
    /// Messages of a channel with `seq > after`, oldest first, at most `limit`.
    func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope]
    /// Profiles of up to 100 users known to the server (unknown ids are left out).
    func profiles(of userIDs: [String]) async throws -> [Profile]
    /// Members of a group channel.
    func members(of channel: Channel) async throws -> [String]
    /// Messages to `channels` follow (a broadcast's next page): a server that needs set-up per
    /// channel may do it for all of them in one go (Matrix: direct rooms resolved, encrypted
    /// rooms' keys shared with one key claim). A hint only: nothing is reported, and each send
    /// still does what it lacks. No default, so a wrapper cannot silently drop it.
    func prepareSends(to channels: [Channel]) async
}

extension Transport {
    /// Sends each channel's messages in the order given and different channels at the same
    /// time, at most `concurrentChannels` at once (a server that persists rooms independently,
    /// like Synapse, is that much faster). Per channel it behaves exactly like the default
    /// `sendBatch`: after a transient failure, that channel's later messages are `notSent`,
    /// while the other channels go on. Results come in input order.
    public func sendBatchByChannel(_ messages: [OutgoingEnvelope], concurrentChannels: Int) async -> [Result<SendReceipt, ParleyError>] {
        // Each channel's positions in the input, channels in order of first appearance.
        var channels: [Channel] = []
        var positions: [Channel: [Int]] = [:]
        for (index, message) in messages.enumerated() {
            if positions[message.channel] == nil { channels.append(message.channel) }
            positions[message.channel, default: []].append(index)
        }
        let width = min(max(1, concurrentChannels), channels.count)
        guard width > 1 else { return await sendEachInOrder(messages) }
        var results = [Result<SendReceipt, ParleyError>](
            repeating: .failure(ParleyError(.notSent, "not attempted")), count: messages.count)
        await withTaskGroup(of: ([Int], [Result<SendReceipt, ParleyError>]).self) { group in
            var next = 0
            func startNext() {
                guard next < channels.count, let indices = positions[channels[next]] else { return }
                next += 1
                let lane = indices.map { messages[$0] }
                group.addTask { (indices, await self.sendEachInOrder(lane)) }
            }
            for _ in 0..<width { startNext() }
            // Bounded: each finished channel starts at most one more, and there are finitely many.
            while let (indices, laneResults) = await group.next() {
                for (index, result) in zip(indices, laneResults) { results[index] = result }
                startNext()
            }
        }
        return results
    }

    /// The simplest `sendBatch`, and the loop behind `sendBatchByChannel`: messages one by one in the order given; after
    /// a transient failure in a channel, that channel's later messages are answered `notSent`
    /// without being attempted, so a retry keeps their order.
    public func sendEachInOrder(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        var results: [Result<SendReceipt, ParleyError>] = []
        results.reserveCapacity(messages.count)
        var stopped: Set<Channel> = []
        for message in messages {
            if stopped.contains(message.channel) {
                results.append(.failure(ParleyError(.notSent, "not attempted after an earlier failure in \(message.channel.target)")))
                continue
            }
            do {
                results.append(.success(try await send(message)))
            } catch {
                let failure = ParleyError.wrapping(error, as: .serverError)
                if failure.isTransient { stopped.insert(message.channel) }
                results.append(.failure(failure))
            }
        }
        return results
    }
}
