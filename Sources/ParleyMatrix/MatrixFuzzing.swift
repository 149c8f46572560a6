import Foundation
import ParleyCore

/// For `parley-fuzz` only, not for applications: runs the decoding the Matrix transport applies
/// to what a homeserver sends, without a store, a network or an actor.
///
/// The transport's own code is called (`JSONValue.parse` as `MatrixClient` does, the `m.direct`
/// mapping, `MatrixContent.decode` on every event a sync answer, a `/messages` page or a single
/// event carries, and `MatrixContent.encode` of what came out, as an own echo is re-sent); what
/// the transport does beyond that (the seen-set, the message store, emitting events) reads fields
/// with the same optional lookups and is not repeated here.
public enum MatrixFuzzing {
    /// Decodes `data` as a homeserver answer and returns the payloads of the messages Parley
    /// would deliver; invalid input gives none (only a crash or a hang is a finding).
    public static func decode(_ data: Data) -> [JSONValue] {
        guard let response = try? JSONValue.parse(data) else { return [] }
        for event in response["account_data"]?["events"]?.arrayValue ?? [] where event["type"]?.stringValue == "m.direct" {
            _ = RoomDirectory.directMap(event["content"] ?? [:])
        }
        var events: [JSONValue] = []
        let rooms = response["rooms"]
        for section in ["join", "leave"] {
            for (_, info) in (rooms?[section]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                events += info["state"]?["events"]?.arrayValue ?? []
                events += info["timeline"]?["events"]?.arrayValue ?? []
            }
        }
        for (_, info) in (rooms?["invite"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            events += info["invite_state"]?["events"]?.arrayValue ?? []
        }
        events += response["chunk"]?.arrayValue ?? []  // a /messages page
        if response["content"] != nil { events.append(response) }  // one event (GET …/event/{id})
        return events.compactMap(decodeEvent)
    }

    /// One event: its message content decoded as `handleMessage` does, plus the fields the
    /// other handlers read; the payload when it is a message Parley delivers.
    static func decodeEvent(_ event: JSONValue) -> JSONValue? {
        let content = event["content"] ?? [:]
        _ = content["m.relates_to"]?["key"]?.stringValue ?? content["redacts"]?.stringValue
        _ = event["unsigned"]?["prev_content"]?["membership"]?.stringValue
        guard let decoded = MatrixContent.decode(content) else { return nil }
        _ = Date(timeIntervalSince1970: Double(event["origin_server_ts"]?.intValue ?? 0) / 1000)
        _ = decoded.payload.jsonData()  // as the message store records it
        _ = try? MatrixContent.encode(payload: decoded.payload, replyTo: nil, ownUserID: "@fuzz:localhost",
                                      textMsgtype: "m.text", clientMessageID: decoded.clientMessageID ?? UUID())
        return decoded.payload
    }
}
