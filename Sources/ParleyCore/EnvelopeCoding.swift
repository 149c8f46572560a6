import Foundation

// MARK: - Envelope parts as JSON (for the outbox and message store rows)

extension ReplyReference {
    var json: JSONValue {
        ["id": .string(messageID), "seq": .int(seq), "sender": .string(sender), "quoted": quoted]
    }

    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, let seq = json["seq"]?.intValue, let sender = json["sender"]?.stringValue else {
            return nil
        }
        self.init(messageID: id, seq: seq, sender: sender, quoted: json["quoted"] ?? .null)
    }
}

extension OutgoingEnvelope {
    /// Everything needed to resend the message after a restart.
    var json: JSONValue {
        var object: [String: JSONValue] = [
            "channel": .string(channel.target), "cmid": .string(clientMessageID.text),
            "payload": payload, "flags": .int(Int64(flags.rawValue)),
        ]
        if let replyTo { object["reply"] = replyTo.json }
        if let visibleTo { object["visible"] = .array(visibleTo.map { .string($0) }) }
        if !extensions.isEmpty { object["ext"] = .object(extensions) }
        return .object(object)
    }

    init?(json: JSONValue) {
        guard let target = json["channel"]?.stringValue, let channel = Channel(target: target),
              let cmid = json["cmid"]?.stringValue.flatMap(UUID.init(uuidString:)), let payload = json["payload"] else {
            return nil
        }
        self.init(channel: channel, clientMessageID: cmid, payload: payload,
                  flags: MessageFlags(rawValue: Int(json["flags"]?.intValue ?? 0)),
                  replyTo: json["reply"].flatMap(ReplyReference.init(json:)),
                  visibleTo: json["visible"]?.arrayValue?.compactMap(\.stringValue),
                  extensions: json["ext"]?.objectValue ?? [:])
    }
}

extension Array where Element == ReactionSummary {
    var json: JSONValue {
        .array(map { .object(["emoji": .string($0.emoji), "users": .array($0.users.map { .string($0) })]) })
    }

    init(json: JSONValue?) {
        self = (json?.arrayValue ?? []).compactMap { entry in
            guard let emoji = entry["emoji"]?.stringValue else { return nil }
            return ReactionSummary(emoji: emoji, users: entry["users"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }
}
