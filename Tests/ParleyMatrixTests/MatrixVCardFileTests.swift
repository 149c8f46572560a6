import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// `attachVCardFile`: a vCard card is followed by the same contact as a `text/vcard` file.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixVCardFileTests {
    @Test func aVCardCardIsFollowedByItsFileOnceEvenWhenResent() async throws {
        let (bot, _, alice, room, _) = try await TestHomeserver.joinedBot { $0.attachVCardFile = true }
        let card = VCardContent(user: "bob", name: "Bob Stone", phone: "+49 30 1234567", email: "bob@example.com")
        let envelope = OutgoingEnvelope(channel: .group(room), payload: card.encoded())
        let sent = try await bot.send(envelope)
        _ = try await bot.send(envelope)
        let page = try await alice.client.messages(room: room, from: nil, direction: "b", limit: 50)
        let events = (page["chunk"]?.arrayValue ?? []).reversed().filter { $0["type"] == "m.room.message" }
        let files = events.filter { $0["content"]?["msgtype"] == "m.file" }
        try #require(files.count == 1, "\(events)")
        #expect(events.last?["event_id"]?.stringValue == files[0]["event_id"]?.stringValue)
        #expect(events.contains { $0["event_id"]?.stringValue == sent.messageID })
        let file = try #require(files.first?["content"])
        #expect(file["body"] == "Bob Stone.vcf")
        #expect(file["info"]?["mimetype"] == "text/vcard")
        let url = try #require(file["url"]?.stringValue)
        let data = try await alice.client.download(url)
        #expect(String(decoding: data, as: UTF8.self) == card.vCardText())
        #expect(try VCardContent(vCard: String(decoding: data, as: UTF8.self)).phone == "+49 30 1234567")
        await bot.disconnect()
    }

    @Test func otherCardsAndTheDefaultSendNoFile() async throws {
        let (bot, _, alice, room, _) = try await TestHomeserver.joinedBot()
        _ = try await bot.send(OutgoingEnvelope(channel: .group(room), payload: VCardContent(name: "Ann").encoded()))
        let page = try await alice.client.messages(room: room, from: nil, direction: "b", limit: 50)
        #expect(!(page["chunk"]?.arrayValue ?? []).contains { $0["content"]?["msgtype"] == "m.file" })
        #expect(MatrixTransport.vCardFilename("a/b:c") == "a_b_c.vcf")
        #expect(MatrixTransport.vCardFilename("") == "contact.vcf")
        await bot.disconnect()
    }
}
