import Foundation
import ParleyCore

extension MatrixTransport {
    /// Sends the vCard of a just-sent vCard card as a `text/vcard` file. The card is the
    /// message: a failure here is logged, not thrown (a retry of the card would not resend it).
    func attachVCard(_ message: OutgoingEnvelope, room: String) async {
        do {
            let card = try VCardContent.decode(ContentFields(message.payload.objectValue ?? [:], contentName: VCardContent.contentName))
            let text = Data(card.vCardText().utf8)
            let filename = Self.vCardFilename(card.name)
            let uri = try await client.upload(text, contentType: "text/vcard", filename: filename)
            // Its own transaction id, derived from the card's, so a resend stays idempotent.
            let txn = UUID(namespace: Self.eventNamespace, name: message.clientMessageID.uuidString + "/vcard")
            _ = try await client.send(room: room, type: "m.room.message", txnID: txn.uuidString, content: [
                "msgtype": "m.file", "body": .string(filename), "filename": .string(filename), "url": .string(uri),
                "info": ["mimetype": "text/vcard", "size": .int(Int64(text.count))],
            ])
        } catch {
            config.log("attaching the vCard file of \(message.clientMessageID) in \(room) failed: \(error)")
        }
    }

    /// `Bob Stone.vcf`, with characters file systems dislike replaced.
    static func vCardFilename(_ name: String) -> String {
        let cleaned = String(name.map { "/\\\\:*?\"<>|".contains($0) || $0.isNewline ? "_" : $0 }.prefix(60))
        return (cleaned.isEmpty ? "contact" : cleaned) + ".vcf"
    }
}
