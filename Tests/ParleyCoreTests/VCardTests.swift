import Foundation
import Testing
import ParleyCore

@Suite struct VCardTests {
    static let cards: [VCardContent] = [
        VCardContent(user: "zhang", name: "张伟 (Zhāng Wěi)", phone: "+86 10 1234 5678", email: "zhang@example.cn",
                     org: "北京科技有限公司, 研发部", title: "高级工程师; 团队负责人"),
        VCardContent(user: "olga", name: "Ольга Сергеевна Иванова-Петрова", avatar: "https://example.com/a/ольга.png?size=256&crop=1",
                     phone: "tel-less 8 (495) 123-45-67", org: "ООО «Рога и Копыта»",
                     title: String(repeating: "Главный специалист по очень длинным должностям ", count: 3)),
        VCardContent(name: "Backslash \\ Comma, Semi; Newline\nSecond line"),
        VCardContent(user: "emoji", name: "Zoë 👩‍💻 Ünïcödé " + String(repeating: "😀", count: 30)),
    ]

    @Test(arguments: 0..<4)
    func roundTripsThroughVCardText(index: Int) throws {
        let card = Self.cards[index]
        let text = card.vCardText()
        #expect(try VCardContent(vCard: text) == card)
    }

    @Test(arguments: 0..<4)
    func linesAreFoldedAt75OctetsOnCharacterBoundaries(index: Int) throws {
        let text = Self.cards[index].vCardText()
        #expect(text.hasSuffix("\r\n"))
        let lines = text.components(separatedBy: "\r\n").dropLast()
        for line in lines {
            #expect(line.utf8.count <= 75, "\(line)")
            // Each physical line is valid UTF-8 on its own: no sequence was split.
            #expect(String(validating: Array(line.utf8), as: UTF8.self) != nil)
        }
    }

    @Test func longNonASCIINamesAreFolded() {
        let text = Self.cards[1].vCardText()
        #expect(text.contains("\r\n "))
    }

    @Test func escapesSpecialCharacters() {
        let text = Self.cards[2].vCardText()
        #expect(text.contains(#"FN:Backslash \\ Comma\, Semi\; Newline\nSecond line"#))
    }

    /// Escaping is per Unicode scalar: `",\u{301}"` is one Swift Character, yet its comma separates
    /// values for vobject and other parsers, which cut the name off there when it went unescaped.
    @Test func escapesSeparatorsFollowedByCombiningMarks() {
        let text = VCardContent(name: "a,\u{301}b;\u{301}c\\\u{301}d", org: "R&D,\u{301} Ops").vCardText()
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.contains("FN:a\\,\u{301}b\\;\u{301}c\\\\\u{301}d"), "\(lines)")
        #expect(lines.contains("ORG:R&D\\,\u{301} Ops"), "\(lines)")
    }

    @Test func crlfCrAndLfEachBecomeOneEscapedNewline() {
        let lines = VCardContent(name: "x", title: "a\r\nb\rc\nd").vCardText().components(separatedBy: "\r\n")
        #expect(lines.contains(#"TITLE:a\nb\nc\nd"#), "\(lines)")
    }

    /// `":\u{301}"` is one Swift Character: read Character-wise, a line whose value starts with a
    /// combining mark had no colon, and the card's own text did not parse.
    @Test func readsValuesThatStartWithACombiningMark() throws {
        let card = VCardContent(user: "\u{301}u", name: "\u{301}x", phone: "\u{301}1", email: "\u{301}e",
                                org: "\u{301}o", title: "\u{301}t")
        #expect(try VCardContent(vCard: card.vCardText()) == card)
    }

    /// The reader splits where other parsers split: at a semicolon even when a combining mark follows.
    @Test func splitsStructuredValuesAtASemicolonBeforeACombiningMark() throws {
        let card = try VCardContent(vCard: "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:x\r\nORG:R&D;\u{301}Ops\r\nEND:VCARD\r\n")
        #expect(card.org?.unicodeScalars.elementsEqual("R&D, \u{301}Ops".unicodeScalars) == true, "\(card.org ?? "nil")")
    }

    /// PHOTO is a URI, written as it is except for what no URI contains: a line break in an avatar
    /// URL ended the line, and the rest became a property of its own (here an EMAIL).
    @Test func photoURIsCannotBreakTheLine() throws {
        let text = VCardContent(name: "Ann", avatar: "https://example.com/a b\\c.png\r\nEMAIL:evil@example.com").vCardText()
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.contains("PHOTO:https://example.com/a%20b%5Cc.png%0D%0AEMAIL:evil@example.com"), "\(lines)")
        #expect(try VCardContent(vCard: text).email == nil)
    }

    @Test func validPhotoURIsAreWrittenUnchanged() {
        let avatar = "https://example.com/a/%C3%B6l,ga.png?s=1;t=2&u=%20#top"
        #expect(VCardContent(name: "Ann", avatar: avatar).vCardText().components(separatedBy: "\r\n").contains("PHOTO:" + avatar))
    }

    @Test func parsesAHandWrittenFoldedCard() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/folded.vcf")
        let card = try VCardContent(vCard: try String(contentsOf: url, encoding: .utf8))
        #expect(card.name == "Jürgen Müller-Lüdenscheidt, Dr.")
        #expect(card.phone == "+49-30-1234567")
        #expect(card.email == "juergen@example.de")
        #expect(card.org == "Überlandwerke GmbH, Abteilung für außergewöhnlich lange Namen")
        #expect(card.title == "Leiter; Stellvertreter")
        #expect(card.user == "urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1")
        #expect(card.avatar == "https://example.com/photos/juergen.jpg")
    }

    @Test(arguments: [
        ("FN:x\r\nEND:VCARD\r\n", 1, "expected BEGIN:VCARD"),
        ("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:x\r\n", 3, "missing END:VCARD"),
        ("BEGIN:VCARD\r\nVERSION:2.1\r\nFN:x\r\nEND:VCARD\r\n", 2, "unsupported vCard version 2.1"),
        ("BEGIN:VCARD\r\nVERSION:4.0\r\nno colon here\r\nEND:VCARD\r\n", 3, "expected NAME:VALUE, found 'no colon here'"),
        ("BEGIN:VCARD\r\nVERSION:4.0\r\nEMAIL:a@b\r\nEND:VCARD\r\n", 1, "missing FN (formatted name)"),
    ])
    func malformedTextNamesTheLine(text: String, line: Int, message: String) {
        #expect(throws: ParleyError(.invalidContent, "vCard line \(line): \(message)", context: ["line": String(line)])) {
            try VCardContent(vCard: text)
        }
    }

    @Test func fromProfile() {
        let card = VCardContent(profile: Profile(id: "bob", name: "Bob Stone", phone: "+49 30 1234567"))
        #expect(card.user == "bob")
        #expect(card.name == "Bob Stone")
        #expect(card.fallback == "[Contact] Bob Stone, +49 30 1234567")
    }
}
