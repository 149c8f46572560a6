import Foundation

/// Which queued work goes first: replies and interactive answers before ordinary sends,
/// ordinary sends before broadcast traffic.
public enum SendPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    case interactive = 0
    case normal = 1
    case broadcast = 2

    public static func < (lhs: SendPriority, rhs: SendPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What a queued item asks the transport to do.
public enum OutboxOperation: Sendable, Hashable {
    case message(OutgoingEnvelope)
    case reaction(emoji: String, messageID: String, channel: Channel, added: Bool)

    /// The channel the operation is about (rate limits and ordering are per channel).
    /// The same operation, marked as one the server may have stored already.
    var resent: OutboxOperation {
        guard case .message(var envelope) = self else { return self }
        envelope.isResend = true
        return .message(envelope)
    }

    public var channel: Channel {
        switch self {
        case .message(let envelope): return envelope.channel
        case .reaction(_, _, let channel, _): return channel
        }
    }
}

/// What the transport answered for a queued item.
public enum OutboxResult: Sendable, Hashable {
    case sent(SendReceipt)
    case reacted
}

/// One durable unit of work in the outbox.
public struct OutboxItem: Sendable, Hashable {
    /// The idempotency key: the client message number for messages.
    public var id: UUID
    /// What to do.
    public var operation: OutboxOperation
    /// Its queue priority.
    public var priority: SendPriority
    /// Transport attempts made so far.
    public var attempts: Int
    /// When it was queued.
    public var enqueuedAt: Date
    /// FIFO position, assigned when queued (kept across restarts).
    public var sequence: Int64

    /// An item; a message's id is its client message number.
    public init(operation: OutboxOperation, priority: SendPriority = .normal, enqueuedAt: Date = Date()) {
        switch operation {
        case .message(let envelope): self.id = envelope.clientMessageID
        case .reaction: self.id = UUID()
        }
        self.operation = operation
        self.priority = priority
        self.attempts = 0
        self.enqueuedAt = enqueuedAt
        self.sequence = 0
    }

    /// The row body: the operation as compact JSON.
    var body: String {
        switch operation {
        case .message(let envelope):
            // Written field by field: building a JSONValue tree per queued message costs more
            // than the row insert. Same document as `["kind": "message", "message": envelope.json]`.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(96 + envelope.payload.encodedByteCount)
            bytes.append(contentsOf: #"{"kind":"message","message":{"channel":"#.utf8)
            JSONValue.string(envelope.channel.target).write(into: &bytes)
            bytes.append(contentsOf: #","cmid":""#.utf8)
            bytes.append(contentsOf: envelope.clientMessageID.text.utf8)
            bytes.append(contentsOf: #"","flags":"#.utf8)
            bytes.append(contentsOf: String(envelope.flags.rawValue).utf8)
            bytes.append(contentsOf: #","payload":"#.utf8)
            envelope.payload.write(into: &bytes)
            for (key, value) in [("reply", envelope.replyTo?.json), ("visible", envelope.visibleTo.map { JSONValue.array($0.map { .string($0) }) }),
                                 ("ext", envelope.extensions.isEmpty ? nil : JSONValue.object(envelope.extensions))] {
                guard let value else { continue }
                bytes.append(contentsOf: ",\"\(key)\":".utf8)
                value.write(into: &bytes)
            }
            bytes.append(contentsOf: "}}".utf8)
            return String(decoding: bytes, as: UTF8.self)
        case .reaction(let emoji, let messageID, let channel, let added):
            return JSONValue.object(["kind": "reaction", "emoji": .string(emoji), "id": .string(messageID),
                                     "channel": .string(channel.target), "added": .bool(added)]).compactJSON()
        }
    }

    /// Rebuilds an item from a stored row; nil when the row is not readable.
    init?(id: UUID, body: String, priority: Int, attempts: Int, enqueuedAt: Date, sequence: Int64) {
        guard let json = try? JSONValue.parse(Data(body.utf8)), let level = SendPriority(rawValue: priority) else { return nil }
        switch json["kind"]?.stringValue {
        case "message":
            guard let envelope = json["message"].flatMap(OutgoingEnvelope.init(json:)) else { return nil }
            operation = .message(envelope)
        case "reaction":
            guard let emoji = json["emoji"]?.stringValue, let messageID = json["id"]?.stringValue,
                  let channel = json["channel"]?.stringValue.flatMap(Channel.init(target:)),
                  let added = json["added"]?.boolValue else { return nil }
            operation = .reaction(emoji: emoji, messageID: messageID, channel: channel, added: added)
        default: return nil
        }
        self.id = id
        self.priority = level
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
        self.sequence = sequence
    }
}
