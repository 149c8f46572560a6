import Foundation
import ParleyCore
import ParleyStore

/// A recorded reaction event: whose, on what, with which key.
struct ReactionRecord: Sendable, Equatable {
    var eventID: String
    var room: String
    var target: String
    var key: String
    var sender: String
}

/// What handling one `/sync` answer changes in the store, gathered while it is handled and
/// written in one transaction at its end, together with the new sync position.
///
/// One commit per sync instead of one per event and another for the position: a commit
/// writes every page it touched to the WAL, and the events of a sync share their pages.
/// It is also all or nothing: a sync that fails half-way leaves no event marked handled,
/// so the retry from the old position handles them all again.
struct SyncWrites: Sendable {
    struct Message: Sendable {
        var envelope: Envelope
        var room: String
        var replyTo: String?
    }

    /// Event ids to mark handled, with their rooms.
    private(set) var seen: [(id: String, room: String)] = []
    /// Messages to record (marked handled too); `apply` assigns their sequence numbers.
    private(set) var messages: [Message] = []
    /// Reactions to record (marked handled too).
    private(set) var reactions: [ReactionRecord] = []
    /// Reaction events to forget (their redactions arrived).
    private(set) var removedReactions: [String] = []
    /// Encrypted events to keep until their key comes, and held events to forget (handled,
    /// given up, or their room left).
    private(set) var held: [HeldEvent] = []
    private(set) var released: [String] = []
    /// Every event id this sync has handled so far, for `contains(_:)`.
    private var handled: Set<String> = []

    /// Whether this sync already handled `eventID` (not yet written).
    func contains(_ eventID: String) -> Bool { handled.contains(eventID) }

    var isEmpty: Bool {
        seen.isEmpty && messages.isEmpty && reactions.isEmpty && removedReactions.isEmpty && held.isEmpty && released.isEmpty
    }

    mutating func hold(_ event: HeldEvent) { held.append(event) }

    mutating func release(_ eventID: String) {
        held.removeAll { $0.id == eventID }
        released.append(eventID)
    }

    mutating func markSeen(_ eventIDs: [String], room: String) {
        for id in eventIDs where handled.insert(id).inserted { seen.append((id, room)) }
    }

    /// Adds a message and returns its index among the messages (for its sequence number).
    mutating func record(_ envelope: Envelope, room: String, replyTo: String?) -> Int {
        handled.insert(envelope.id)
        messages.append(Message(envelope: envelope, room: room, replyTo: replyTo))
        return messages.count - 1
    }

    /// A message recorded in this sync, if `eventID` is one.
    func message(_ eventID: String) -> Message? { messages.last { $0.envelope.id == eventID } }

    mutating func record(_ reaction: ReactionRecord) {
        handled.insert(reaction.eventID)
        reactions.append(reaction)
    }

    /// Forgets a reaction (recorded earlier, or in this sync) and returns it, if it was one.
    mutating func removeReaction(_ eventID: String, recorded: ReactionRecord?) -> ReactionRecord? {
        if let index = reactions.lastIndex(where: { $0.eventID == eventID }) {
            return reactions.remove(at: index)
        }
        if recorded != nil { removedReactions.append(eventID) }
        return recorded
    }
}

extension MatrixStore {
    /// Writes `writes` and (when given) the sync position in one transaction; returns the
    /// sequence numbers of its messages, in order.
    /// - Throws: `ParleyError(.storage)`; then nothing was written.
    func apply(_ writes: SyncWrites, since: (userID: String, position: String)?) throws -> [Int64] {
        try storage {
            try db.transaction {
                for (id, room) in writes.seen { try insertSeen(id, room: room) }
                let seqs = try writes.messages.map {
                    try insertMessage($0.envelope, room: $0.room, replyTo: $0.replyTo, markSeen: true).seq
                }
                for reaction in writes.reactions {
                    try insertReaction(eventID: reaction.eventID, room: reaction.room, target: reaction.target, key: reaction.key,
                                       sender: reaction.sender)
                }
                for id in writes.removedReactions { try deleteReaction(eventID: id) }
                for event in writes.held {
                    try db.run("INSERT OR IGNORE INTO matrix_held (event_id, room_id, event, held_at) VALUES (?, ?, ?, ?)",
                               [.text(event.id), .text(event.room), .text(event.event.jsonString()), .real(event.heldAt.timeIntervalSince1970)])
                }
                for id in writes.released { try db.run("DELETE FROM matrix_held WHERE event_id = ?", [.text(id)]) }
                if let since { try upsertSince(userID: since.userID, since: since.position) }
                return seqs
            }
        }
    }
}

extension MatrixStore {
    /// The encrypted events still waiting for their keys, oldest first (a row that no longer
    /// parses is dropped with the others' order kept: it could never be decrypted).
    func heldEvents() throws -> [HeldEvent] {
        try storage {
            try db.rows("SELECT event_id, room_id, event, held_at FROM matrix_held ORDER BY held_at, event_id").compactMap { row in
                guard let id = row[0].string, let room = row[1].string, let text = row[2].string,
                      let event = try? JSONValue.parse(text), let heldAt = row[3].double else { return nil }
                return HeldEvent(room: room, id: id, event: event, heldAt: Date(timeIntervalSince1970: heldAt))
            }
        }
    }
}
