import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrixCrypto
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// A vCard card's `.vcf` file in an encrypted room is an encrypted attachment: the event is
/// Megolm-encrypted, the upload is ciphertext, and the key, IV and hash in the event open it.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixEncryptedVCardFileTests {
    static func unpaddedBase64(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }

    @Test func theVCardFileIsAnEncryptedAttachment() async throws {
        try await withTimeout("the encrypted vCard file", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let aliceUser = try await TestHomeserver.register("alice")
            let bot = try EncryptedTestDevice.transport(botUser, mode: .allow) { $0.attachVCardFile = true }
            let aliceDatabase = TestHomeserver.freshDatabasePath()
            let aliceEngine = try EncryptedTestDevice.engine(databasePath: aliceDatabase)
            let alice = try EncryptedTestDevice.transport(aliceUser, mode: .default, databasePath: aliceDatabase, engine: aliceEngine)
            let botInbox = Inbox.start(try await bot.connect())
            let aliceInbox = Inbox.start(try await alice.connect())
            _ = try await alice.send(OutgoingEnvelope(channel: .person(botUser.userID), payload: ["type": 1, "text": "your card?"]))
            #expect(await botInbox.waitForText("your card?"))
            let card = VCardContent(user: "bob", name: "Bob Stone", phone: "+49 30 1234567", email: "bob@example.com")
            _ = try await bot.send(OutgoingEnvelope(channel: .person(aliceUser.userID), payload: card.encoded()))
            #expect(await aliceInbox.wait { $0.contains { if case .message(let message) = $0 { return message.payload["type"]?.intValue == VCardContent.contentTypeCode }; return false } })

            let room = try await alice.roomID(for: .person(botUser.userID))
            let raw = try await EncryptedTestDevice.rawEvents(aliceUser, room: room)
            #expect(!raw.contains { $0["type"] == "m.room.message" })
            let fromBot = raw.filter { $0["sender"]?.stringValue == botUser.userID && $0["type"] == "m.room.encrypted" }
            var files: [JSONValue] = []
            for event in fromBot {
                if case .decrypted(let clear) = await aliceEngine.decrypt(event, room: room), clear["content"]?["msgtype"] == "m.file" {
                    files.append(clear["content"] ?? [:])
                }
            }
            let file = try #require(files.first, "no m.file among the bot's \(fromBot.count) encrypted events")
            #expect(files.count == 1)
            #expect(file["url"] == nil && file["body"] == "Bob Stone.vcf" && file["info"]?["mimetype"] == "text/vcard")
            let attachment = try #require(file["file"])
            #expect(attachment["v"] == "v2" && attachment["key"]?["alg"] == "A256CTR")
            let url = try #require(attachment["url"]?.stringValue)
            let uploaded = try await aliceUser.client.download(url)
            #expect(uploaded.range(of: Data("BEGIN:VCARD".utf8)) == nil, "the upload is in clear")
            let key = try #require((attachment["key"]?["k"]?.stringValue).flatMap(Self.unpaddedBase64))
            let iv = try #require((attachment["iv"]?.stringValue).flatMap(Self.unpaddedBase64))
            let hash = try #require((attachment["hashes"]?["sha256"]?.stringValue).flatMap(Self.unpaddedBase64))
            let text = String(decoding: try AttachmentCipher.decrypt(uploaded, key: key, iv: iv, sha256: hash), as: UTF8.self)
            #expect(text.contains("BEGIN:VCARD") && text.contains("Bob Stone"), "\(text)")
            await bot.disconnect()
            await alice.disconnect()
        }
    }
}
