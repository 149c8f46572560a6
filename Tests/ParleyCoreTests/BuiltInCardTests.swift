import Testing
import ParleyCore

/// `BuiltInCard.all` is the one list of built-in cards: each entry's fields are its content's
/// wire fields, its content round-trips through the standard registry under its name and code,
/// and a YAML card may not take its name.
@Suite struct BuiltInCardTests {
    /// Every field given, as a number so that numeric fields (an image's size) parse too.
    static func everyField(of card: BuiltInCard) -> [String: String] {
        Dictionary(uniqueKeysWithValues: card.fields.map { ($0, "7") })
    }

    @Test(arguments: BuiltInCard.all.map(\.name))
    func aCardMadeWithEveryFieldWritesExactlyThoseFields(name: String) throws {
        let card = try #require(BuiltInCard.named[name])
        let content = card.make(Self.everyField(of: card))
        #expect(content.typeCode == card.typeCode)
        #expect(content.cardName == card.name)
        #expect(Set(content.encodeFields().keys) == Set(card.fields))
    }

    @Test(arguments: BuiltInCard.all.map(\.name))
    func everyCardRoundTripsThroughTheStandardRegistry(name: String) throws {
        let card = try #require(BuiltInCard.named[name])
        let registry = ContentRegistry.standard
        #expect(registry.name(of: card.typeCode) == card.name)
        #expect(registry.code(named: card.name) == card.typeCode)
        let encoded = card.make(Self.everyField(of: card)).encoded()
        let decoded = try registry.decode(encoded)
        #expect(decoded.encoded() == encoded)
        #expect(try card.decode(ContentFields(encoded.objectValue ?? [:], contentName: card.name)).encoded() == encoded)
    }

    @Test(arguments: BuiltInCard.all.map(\.name))
    func aDeclaredCardMayNotTakeABuiltInName(name: String) throws {
        #expect(CardDefinition.builtInNames.contains(name))
        #expect(throws: ParleyError.self) {
            try CardDefinition(name: name, typeCode: 1001, fields: [], fallback: Template("x"))
        }
    }

    @Test func namesAndCodesAreDistinctAndBelowTheCustomRange() {
        #expect(Set(BuiltInCard.all.map(\.name)).count == BuiltInCard.all.count)
        #expect(Set(BuiltInCard.all.map(\.typeCode)).count == BuiltInCard.all.count)
        #expect(BuiltInCard.all.allSatisfy { $0.typeCode != TextContent.contentTypeCode && $0.typeCode < CardDefinition.firstCustomCode })
        #expect(BuiltInCard.named.count == BuiltInCard.all.count)
    }

    @Test func fieldsLeftEmptyAreLeftOut() throws {
        let link = try #require(BuiltInCard.named["link"])
        let content = link.make(["text": "Docs", "url": "https://e.com", "description": ""])
        #expect(content.encoded() == ["type": 5, "card": "link", "text": "Docs", "url": "https://e.com", "fallback": "Docs: https://e.com"])
    }

    @Test func aVCardTakesWhatItsFieldsLeaveOutFromTheProfile() throws {
        let vcard = try #require(BuiltInCard.named["vcard"])
        #expect(vcard.profileField == "user")
        let profile = Profile(id: "bob", name: "Bob Stone", phone: "+49 30 1234567", email: "bob@example.com")
        let content = try #require(vcard.make(["user": "bob", "email": "b@work.example"], profile: profile) as? VCardContent)
        #expect(content == VCardContent(user: "bob", name: "Bob Stone", phone: "+49 30 1234567", email: "b@work.example"))
        let alone = try #require(vcard.make(["user": "bob"]) as? VCardContent)
        #expect(alone == VCardContent(user: "bob", name: "bob"))
    }
}
