import Foundation
import ParleyCore

/// The store writes of the `/sync` answer being handled and the events they release: an event
/// reaches the consumer only after what marks it handled is committed (as before, one event
/// at a time), now in one transaction per sync.
struct SyncBatch {
    enum Pending {
        case event(TransportEvent)
        /// A message whose sequence number the commit assigns (its index in the writes).
        case message(Envelope, index: Int)
    }

    var writes = SyncWrites()
    var events: [Pending] = []
}

extension MatrixTransport {
    /// Whether `eventID` was handled, by this sync or before.
    func isHandled(_ eventID: String) async throws -> Bool {
        if syncBatch.writes.contains(eventID) { return true }
        return try await store.isSeen(eventID)
    }

    /// Marks events handled without recording a message (written with the sync).
    func markHandled(_ eventIDs: [String], room: String) {
        syncBatch.writes.markSeen(eventIDs, room: room)
    }

    /// Records a message of someone else and hands it to the consumer once it is committed
    /// with its sequence number.
    func deliver(_ envelope: Envelope, room: String, replyTo: String?) {
        let index = syncBatch.writes.record(envelope, room: room, replyTo: replyTo)
        syncBatch.events.append(.message(envelope, index: index))
    }

    /// Commits the writes gathered so far (with the sync position, when given), then pushes
    /// the events they release. If the commit fails nothing is pushed: the sync is retried
    /// from the old position and handles the same events again.
    func commitSyncBatch(since: String?) async throws {
        let batch = syncBatch
        syncBatch = SyncBatch()
        // Events that wrote nothing (an invite) still go out, after what came before them.
        let seqs = batch.writes.isEmpty && since == nil ? [] : try await store.apply(batch.writes, since: since.map { (userID, $0) })
        for pending in batch.events {
            switch pending {
            case .event(let event):
                push(event)
            case .message(var envelope, let index):
                envelope.seq = seqs[index]
                push(.message(envelope))
            }
        }
    }
}
