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

    public init(channel: Channel, messageID: String, emoji: String, user: String, added: Bool) {
        self.channel = channel
        self.messageID = messageID
        self.emoji = emoji
        self.user = user
        self.added = added
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

    /// Connects and returns the event stream. Messages missed while offline are delivered
    /// first (catch-up), then live events. The stream finishes on `disconnect()`.
    func connect() async throws -> AsyncStream<TransportEvent>
    func disconnect() async

    /// Sends a message. Idempotent by `clientMessageID`: a resend returns the first receipt.
    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt
    /// Sends messages in the order given, one result each (the outbox calls this with up to a
    /// few hundred at a time, so a server can take them in one round trip or one commit).
    /// After a transient failure in a channel, that channel's later messages must not be
    /// attempted: they are answered `notSent`, so a retry keeps their order. A default
    /// implementation sends one by one.
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>]
    /// Adds or removes this account's `emoji` reaction on a message. Adding twice is a no-op.
    func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws
    /// Messages of a channel with `seq > after`, oldest first, at most `limit`.
    func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope]
    /// Profiles of up to 100 users known to the server (unknown ids are left out).
    func profiles(of userIDs: [String]) async throws -> [Profile]
    /// Members of a group channel.
    func members(of channel: Channel) async throws -> [String]
}

extension Transport {
    public func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
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
