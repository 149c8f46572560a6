import Foundation
import ParleyCore
import ParleyStore

/// The mapping between `HubMessage` and a `hub_messages` row. Structured fields (reply,
/// visibility list, extensions) are canonical JSON; an empty one is NULL.
enum MessageRow {
    static func values(of message: HubMessage, channel: Int) -> [StoreValue] {
        var reply = StoreValue.null
        if let replyTo = message.replyTo {
            let object: JSONValue = [
                "id": .string(replyTo.messageID), "seq": .int(replyTo.seq), "sender": .string(replyTo.sender), "quoted": replyTo.quoted,
            ]
            reply = .text(object.compactJSON())
        }
        let visible = message.visibleTo.map { StoreValue.text(JSONValue.array($0.map(JSONValue.string)).compactJSON()) } ?? .null
        let extensions = message.extensions.isEmpty ? StoreValue.null : .text(JSONValue.object(message.extensions).compactJSON())
        return [
            .integer(Int64(channel)), .integer(message.seq), .blob(bytes(of: message.clientMessageID)), .text(message.sender),
            .real(message.timestamp.timeIntervalSince1970), .text(message.payload.compactJSON()),
            .integer(Int64(message.flags.rawValue)), reply, visible, extensions,
        ]
    }

    /// Reads the columns of `HubDatabase.selectMessages`. A damaged row is a storage error
    /// naming the column, never a crash.
    static func message(from row: Row) throws -> HubMessage {
        guard let seq = row[0].int64, let idBytes = row[1].data, idBytes.count == 16,
              let sender = row[2].string, let time = row[3].double, let payloadText = row[4].string,
              let flags = row[5].int else {
            throw ParleyError(.storage, "damaged hub_messages row", context: ["seq": row[0].int64.map(String.init) ?? "?"])
        }
        var message = HubMessage(
            seq: seq, clientMessageID: uuid(from: idBytes), sender: sender, timestamp: Date(timeIntervalSince1970: time),
            payload: try json(payloadText, column: "payload", seq: seq), flags: MessageFlags(rawValue: flags),
            replyTo: nil, visibleTo: nil, extensions: [:])
        if let text = row[6].string {
            let reply = try json(text, column: "reply", seq: seq)
            guard let id = reply["id"]?.stringValue, let replySeq = reply["seq"]?.intValue, let replySender = reply["sender"]?.stringValue else {
                throw ParleyError(.storage, "damaged reply reference", context: ["seq": String(seq), "column": "reply"])
            }
            message.replyTo = ReplyReference(messageID: id, seq: replySeq, sender: replySender, quoted: reply["quoted"] ?? .null)
        }
        if let text = row[7].string {
            message.visibleTo = try json(text, column: "visible_to", seq: seq).arrayValue?.compactMap(\.stringValue)
        }
        if let text = row[8].string {
            message.extensions = try json(text, column: "extensions", seq: seq).objectValue ?? [:]
        }
        return message
    }

    /// Parses a JSON column; bad JSON is a storage error naming the column and seq.
    private static func json(_ text: String, column: String, seq: Int64) throws -> JSONValue {
        do {
            return try JSONValue.parse(Data(text.utf8))
        } catch {
            throw ParleyError(.storage, "damaged hub_messages row: \(error)", context: ["seq": String(seq), "column": column])
        }
    }

    static func bytes(of id: UUID) -> Data {
        withUnsafeBytes(of: id.uuid) { Data($0) }
    }

    static func uuid(from data: Data) -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { target in data.prefix(16).enumerated().forEach { target[$0.offset] = $0.element } }
        return UUID(uuid: raw)
    }
}
