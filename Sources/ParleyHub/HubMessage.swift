import Foundation
import ParleyCore

/// A message as the hub keeps it: everything of an `Envelope` except the channel (which
/// depends on who looks) and the id (derived from channel number and seq, see `HubMessageID`).
struct HubMessage: Sendable {
    var seq: Int64
    var clientMessageID: UUID
    var sender: String
    var timestamp: Date
    var payload: JSONValue
    var flags: MessageFlags
    var replyTo: ReplyReference?
    var visibleTo: [String]?
    var extensions: [String: JSONValue]
    var reactions: [ReactionSummary] = []

    /// Visibility lists restrict who receives a group message; the sender always sees it.
    func isVisible(to user: String) -> Bool {
        guard let visibleTo else { return true }
        return user == sender || visibleTo.contains(user)
    }

    /// The envelope `viewer` receives.
    func envelope(channelNumber: Int, key: ChannelKey, viewer: String) -> Envelope {
        Envelope(
            id: HubMessageID.make(channel: channelNumber, seq: seq), channel: key.channel(seenBy: viewer), seq: seq,
            clientMessageID: clientMessageID, sender: sender, timestamp: timestamp, payload: payload, flags: flags,
            replyTo: replyTo, reactions: reactions, visibleTo: visibleTo, extensions: extensions)
    }
}

/// Message ids are `m<channel number>.<seq>`: unique, short enough to stay inline in a
/// `String`, and they locate the message without an index.
enum HubMessageID {
    static func make(channel: Int, seq: Int64) -> String { "m\(channel).\(seq)" }

    /// The channel number and seq of an id made by `make`, or nil.
    static func parse(_ id: String) -> (channel: Int, seq: Int64)? {
        guard id.first == "m", let dot = id.firstIndex(of: ".") else { return nil }
        guard let channel = Int(id[id.index(after: id.startIndex)..<dot]),
              let seq = Int64(id[id.index(after: dot)...]) else { return nil }
        return (channel, seq)
    }
}
