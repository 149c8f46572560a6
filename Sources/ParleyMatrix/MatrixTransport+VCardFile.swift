import Foundation
import ParleyCore

extension MatrixTransport {
    /// Sends the vCard of a just-sent vCard card as a `text/vcard` file; in an encrypted room
    /// the file is encrypted (its key in the encrypted event, only ciphertext uploaded). The
    /// card is the message: a failure here is logged, not thrown (a retry of the card would not
    /// resend it).
    func attachVCard(_ message: OutgoingEnvelope, room: String, encrypted: Bool) async {
        do {
            let card = try VCardContent.decode(ContentFields(message.payload.objectValue ?? [:], contentName: VCardContent.contentName))
            let text = Data(card.vCardText().utf8)
            let filename = Self.vCardFilename(card.name)
            var content: [String: JSONValue] = [
                "msgtype": "m.file", "body": .string(filename), "filename": .string(filename),
                "info": ["mimetype": "text/vcard", "size": .int(Int64(text.count))],
            ]
            if encrypted {
                guard let encryption = config.encryption else { return }
                var (ciphertext, file) = try encryption.encryptAttachment(text)
                file["url"] = .string(try await client.upload(ciphertext, contentType: "application/octet-stream", filename: nil))
                content["file"] = .object(file)
            } else {
                content["url"] = .string(try await client.upload(text, contentType: "text/vcard", filename: filename))
            }
            let event = try await sealed(.object(content), type: "m.room.message", room: room)
            // Its own transaction id, derived from the card's, so a resend stays idempotent.
            let txn = UUID(namespace: Self.eventNamespace, name: message.clientMessageID.uuidString + "/vcard")
            _ = try await client.send(room: room, type: event.type, txnID: txn.uuidString, content: event.content)
        } catch {
            config.log("attaching the vCard file of \(message.clientMessageID) in \(room) failed: \(error)")
        }
    }

    /// `Bob Stone.vcf`: the name as the customer's client will save it. `_` replaces what file
    /// systems refuse (`/\:*?"<>|`), control characters and the bidi controls that can make
    /// `.exe.vcf` look like `.pdf`; leading dots (a hidden file) and surrounding spaces go; at most
    /// 60 characters and 120 UTF-8 octets, so it fits the usual 255-octet limit with room to spare.
    static func vCardFilename(_ name: String) -> String {
        var cleaned = ""
        for character in name.prefix(60) {
            let refused = "/\\:*?\"<>|".contains(character) || character.isNewline
                || character.unicodeScalars.contains { $0.properties.generalCategory == .control || bidiControls.contains($0.value) }
            let piece = refused ? "_" : String(character)
            guard cleaned.utf8.count + piece.utf8.count <= 120 else { break }
            cleaned += piece
        }
        var trimmed = cleaned.drop { $0.isWhitespace || $0 == "." }
        while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
        return (trimmed.isEmpty ? "contact" : String(trimmed)) + ".vcf"
    }

    /// Marks, embeddings, overrides and isolates of the Unicode bidirectional algorithm.
    private static let bidiControls: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                                                    0x2066, 0x2067, 0x2068, 0x2069]
}
