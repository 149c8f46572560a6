import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// The `.vcf` file a customer receives (`attachVCardFile`), read back with tools Parley did not
/// write: `scripts/vcard-check.py` logs in as the customer with matrix-nio, downloads the file from
/// the authenticated media endpoint and parses it with vobject. Every field must come back as sent.
@Suite(.enabled(if: TestSynapse.isConfigured, "needs PARLEY_MATRIX_HOMESERVER (eval \"$(scripts/synapse start)\")"))
struct MatrixVCardRoundTripTests {
    /// A card, the structured name (N) expected for it, the file name the customer sees and the
    /// PHOTO URI when it differs from the avatar (characters no URI contains are percent-encoded).
    struct Case: Sendable, CustomTestStringConvertible {
        var card: VCardContent
        var family: String
        var given: String
        var filename: String
        var photo: String?
        var testDescription: String { card.name }

        init(card: VCardContent, family: String, given: String, filename: String, photo: String? = nil) {
            (self.card, self.family, self.given, self.filename, self.photo) = (card, family, given, filename, photo ?? card.avatar)
        }
    }

    static let cases: [Case] = [
        Case(card: VCardContent(
            user: "@zoe.angstrom:example.org", name: "Zoë Ångström-Łukasiewicz",
            avatar: "https://example.com/avatars/zo%C3%AB.png?size=256&v=2", phone: "+48 22 123 45 67",
            email: "zoe.angstrom@example.com",
            org: "Ångström, Łukasiewicz & Partners; R&D \\ Kraków\nBuilding 2",
            title: "Head of \"Support\", EMEA; on-call \\\\ weekends\nand holidays"),
             family: "Ångström-Łukasiewicz", given: "Zoë", filename: "Zoë Ångström-Łukasiewicz.vcf"),
        // Three-octet characters in lines long enough to be folded, and CJK punctuation.
        Case(card: VCardContent(
            user: "@wang:example.cn", name: "王小明", phone: "+86 10 1234 5678", email: "xiaoming.wang@example.cn",
            org: "北京科技有限公司，研发部; 第二实验室, 北楼",
            title: String(repeating: "高级工程师；团队负责人, ", count: 4) + "\\ 备注\n第二行"),
             family: "", given: "王小明", filename: "王小明.vcf"),
        // Separators followed by combining marks (one Swift Character each, still separators in
        // vCard), and a line break in the avatar URL that must not start a property of its own.
        Case(card: VCardContent(name: "Zoe\u{308},\u{301} Ångström", avatar: "https://example.com/a b.png\r\nEMAIL:evil@example.com",
                                org: "R&D;\u{301} Ops,\u{301} Kraków", title: "Lead\\\u{301}n Support"),
             family: "Ångström", given: "Zoe\u{308},\u{301}", filename: "Zoe\u{308},\u{301} Ångström.vcf",
             photo: "https://example.com/a%20b.png%0D%0AEMAIL:evil@example.com"),
        // Only the name: no other property may appear.
        Case(card: VCardContent(name: "Ann"), family: "", given: "Ann", filename: "Ann.vcf"),
    ]

    @Test(arguments: cases)
    func theVCardFileRoundTripsEveryFieldThroughAnIndependentParser(_ example: Case) async throws {
        let card = example.card
        let botUser = try await TestHomeserver.register("bot")
        let customer = try await TestHomeserver.register("customer")
        let bot = try TestHomeserver.transport(botUser) { $0.attachVCardFile = true }
        _ = Inbox.start(try await bot.connect())
        // As a bot sends it: the card's payload to the customer's direct room.
        let channel = Channel.person(customer.userID)
        _ = try await bot.send(OutgoingEnvelope(channel: channel, payload: card.encoded()))
        let room = try await bot.roomID(for: channel)
        await bot.disconnect()

        let result = try await ScriptRunner.run("vcard-check.py", [
            "--homeserver", try TestSynapse.url().absoluteString, "--user", customer.userID,
            "--password", customer.password, "--room", room, "--timeout", "60",
        ], timeout: .seconds(90))
        try #require(result.status == 0, "vcard-check.py exited \(result.status) (scripts/synapse install adds vobject): \(result.stderr)")
        let checked = try JSONValue.parse(Data(result.stdout.utf8))

        let vcard = try #require(checked["vcard"])
        #expect(vcard["version"] == ["4.0"])
        #expect(vcard["fn"] == [.string(card.name)])
        #expect(vcard["n"] == ["family": .string(example.family), "given": .string(example.given),
                               "additional": "", "prefix": "", "suffix": ""])
        #expect(vcard["tel"] == Self.list(card.phone))
        #expect(vcard["email"] == Self.list(card.email))
        // ORG is structured (organisation;unit;…): the whole org is its one component.
        #expect(vcard["org"] == .array(card.org.map { [[.string($0)]] } ?? []))
        #expect(vcard["title"] == Self.list(card.title))
        #expect(vcard["photo"] == Self.list(example.photo))
        #expect(vcard["uid"] == Self.list(card.user))
        var properties = ["fn", "n", "version"]
        for (name, value) in [("tel", card.phone), ("email", card.email), ("org", card.org), ("title", card.title),
                              ("photo", card.avatar), ("uid", card.user)] where value != nil {
            properties.append(name)
        }
        #expect(vcard["properties"] == .array(properties.sorted().map { .string($0) }))

        let text = try #require(checked["text"])
        #expect(text["crlf"] == true)
        #expect((text["longest_line_octets"]?.intValue ?? 76) <= 75, "\(text)")
        #expect(text["lines_valid_utf8"] == true)

        let event = try #require(checked["event"])
        #expect(event["sender"] == .string(botUser.userID))
        #expect(event["mimetype"] == "text/vcard")
        #expect(event["body"] == .string(example.filename))
        #expect(event["filename"] == .string(example.filename))
        let download = try #require(checked["download"])
        #expect(download["endpoint"] == "/_matrix/client/v1/media/download")
        #expect(download["content_type"]?.stringValue?.hasPrefix("text/vcard") == true, "\(download)")
        #expect(download["filename"] == .string(example.filename))
        #expect(download["octets"] == event["size"])
    }

    private static func list(_ value: String?) -> JSONValue { .array(value.map { [.string($0)] } ?? []) }
}
