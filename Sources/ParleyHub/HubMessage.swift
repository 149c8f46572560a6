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
    static func make(channel: Int, seq: Int64) -> String {
        // Written digit by digit into the string's own storage: made twice per message (its
        // receipt and each delivery), where an interpolation builds and appends three pieces.
        // Non-negative numbers only (channel numbers and seqs are); anything else interpolates.
        guard channel >= 0, seq >= 0 else { return "m\(channel).\(seq)" }
        let channelDigits = digitCount(UInt64(channel)), seqDigits = digitCount(UInt64(seq))
        return String(unsafeUninitializedCapacity: 2 + channelDigits + seqDigits) { bytes in
            bytes[0] = UInt8(ascii: "m")
            write(UInt64(channel), endingAt: channelDigits, into: bytes)
            bytes[1 + channelDigits] = UInt8(ascii: ".")
            write(UInt64(seq), endingAt: 1 + channelDigits + seqDigits, into: bytes)
            return 2 + channelDigits + seqDigits
        }
    }

    private static func digitCount(_ value: UInt64) -> Int {
        var count = 1, rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    /// Writes `value`'s decimal digits so that the last one is at `end` (inclusive).
    private static func write(_ value: UInt64, endingAt end: Int, into bytes: UnsafeMutableBufferPointer<UInt8>) {
        var value = value, index = end
        repeat {
            bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
            index -= 1
        } while value > 0
    }

    /// The channel number and seq of an id made by `make`, or nil.
    static func parse(_ id: String) -> (channel: Int, seq: Int64)? {
        guard id.first == "m", let dot = id.firstIndex(of: ".") else { return nil }
        guard let channel = Int(id[id.index(after: id.startIndex)..<dot]),
              let seq = Int64(id[id.index(after: dot)...]) else { return nil }
        return (channel, seq)
    }
}
