import Testing
import ParleyCore

@Suite struct ContentRegistryTests {
    static let builtIns: [any MessageContent] = [
        TextContent("héllo"),
        ImageContent(url: "https://example.com/a.png", width: 640, height: 480),
        GreetingContent(text: "Hi Alice! Type /help.", summary: "A hello"),
        VCardContent(user: "bob", name: "Bob Stone", phone: "+49 30 1234567", email: "bob@example.com"),
        LinkContent(text: "Parley docs", url: "https://example.com/docs", description: "All of it", image: "https://example.com/i.png"),
    ]

    @Test(arguments: 0..<5)
    func builtInsRoundTrip(index: Int) throws {
        let content = Self.builtIns[index]
        let encoded = content.encoded()
        #expect(encoded["type"]?.intValue == content.typeCode)
        let decoded = try ContentRegistry.standard.decode(encoded)
        #expect(type(of: decoded) == type(of: content))
        #expect(decoded.encoded() == encoded)
        #expect(decoded.fallback == content.fallback)
    }

    @Test func textHasNoFallbackKeyAndCardsDo() {
        #expect(TextContent("x").encoded() == ["type": 1, "text": "x"])
        let link = LinkContent(text: "Docs", url: "https://e.com").encoded()
        #expect(link == ["type": 5, "card": "link", "text": "Docs", "url": "https://e.com", "fallback": "Docs: https://e.com"])
    }

    @Test func duplicateCodesAndNamesAreRejected() throws {
        var registry = ContentRegistry.standard
        #expect(throws: ParleyError(.conflict, "content type 3 is already registered as 'greeting'",
                                    context: ["type": "3", "name": "greeting"])) {
            try registry.register(GreetingContent.self)
        }
        let order = try CardDefinition(name: "order", typeCode: 1001, fields: ["id"], fallback: Template("Order {{id}}"))
        try registry.register(card: order)
        let clash = try CardDefinition(name: "order", typeCode: 1002, fields: [], fallback: Template("x"))
        #expect(throws: ParleyError(.conflict, "content name 'order' is already registered with type 1001",
                                    context: ["type": "1002", "name": "order"])) {
            try registry.register(card: clash)
        }
    }

    @Test func unknownContentSurvivesDecodeAndEncodeUnchanged() throws {
        let payload: JSONValue = ["type": 4242, "fallback": "A poll: lunch?", "card": "poll",
                                  "options": ["pizza", "sushi"], "deadline": ["h": 12, "m": 30.5], "open": true, "note": nil]
        let content = try ContentRegistry.standard.decode(payload)
        let unknown = try #require(content as? UnknownContent)
        #expect(unknown.typeCode == 4242)
        #expect(unknown.fallback == "A poll: lunch?")
        #expect(unknown.cardName == "poll")
        #expect(content.encoded() == payload)
        #expect(content.encoded().compactJSON() == payload.compactJSON())
    }

    @Test func unknownContentWithoutFallbackShowsAPlaceholder() throws {
        let content = try ContentRegistry.standard.decode(["type": 77])
        #expect(content.fallback == "[Unsupported message]")
    }

    @Test(arguments: [
        (["type": 2, "width": 3] as JSONValue, "image: missing field 'url'"),
        (["type": 2, "url": 5] as JSONValue, "image: field 'url' must be a string, found 5"),
        (["type": 1] as JSONValue, "text: missing field 'text'"),
        (["type": 2, "url": "u", "width": "wide"] as JSONValue, "image: field 'width' must be an integer, found \"wide\""),
        (["text": "no type"] as JSONValue, "payload has no integer 'type'"),
        ("just a string" as JSONValue, "payload must be a JSON object, found \"just a string\""),
    ])
    func invalidPayloadsNameTheField(payload: JSONValue, message: String) {
        #expect {
            try ContentRegistry.standard.decode(payload)
        } throws: { error in
            (error as? ParleyError)?.code == .invalidContent && (error as? ParleyError)?.message == message
        }
    }

    @Test func yamlCardsEncodeDecodeAndRenderTheirFallback() throws {
        let definition = try CardDefinition(name: "order", typeCode: 1001, fields: ["order_id", "status"],
                                            fallback: Template("Order {{order_id}}: {{status}}"))
        var registry = ContentRegistry.standard
        try registry.register(card: definition)
        let card = try CardContent(definition: definition, values: ["order_id": "123456", "status": "refund requested"])
        #expect(card.fallback == "Order 123456: refund requested")
        let encoded = card.encoded()
        #expect(encoded == ["type": 1001, "card": "order", "order_id": "123456", "status": "refund requested",
                            "fallback": "Order 123456: refund requested"])
        let decoded = try #require(try registry.decode(encoded) as? CardContent)
        #expect(decoded == card)
        #expect(registry.code(named: "order") == 1001)
        #expect(throws: ParleyError.self) { try CardContent(definition: definition, values: ["colour": "red"]) }
    }

    @Test(arguments: [
        ("vcard", Int64(1001), ["a"], "x", "card 'vcard': 'vcard' is a built-in card name"),
        ("order", Int64(7), ["a"], "x", "card 'order': type 7 is below 1000 (codes below are Parley's own)"),
        ("order", Int64(1001), ["type"], "x", "card 'order': field 'type' is a reserved name"),
        ("order", Int64(1001), ["a", "a"], "x", "card 'order': field 'a' is declared twice"),
        ("order", Int64(1001), ["a"], "{{b}}", "card 'order': the fallback uses '{{b}}', which is not a declared field"),
    ])
    func badCardDefinitionsAreRejected(name: String, code: Int64, fields: [String], fallback: String, message: String) throws {
        let template = try Template(fallback)
        #expect {
            try CardDefinition(name: name, typeCode: code, fields: fields, fallback: template)
        } throws: { error in
            (error as? ParleyError)?.message == message
        }
    }

    @Test func digestsAndSummaries() {
        #expect(GreetingContent(text: "Hello there", summary: "Hi").digest == "Hi")
        #expect(ImageContent(url: "u").digest == "[Image]")
        #expect(VCardContent(name: "Bob").digest == "[Contact] Bob")
        #expect(LinkContent(text: "Docs", url: "u").summary == "Docs: u")
    }

    @Test func compactJSONMatchesItsByteCountAndEscapes() {
        let value: JSONValue = ["b": "line\nbreak \"q\" \\ tab\t é /", "a": [1, 2.5, nil, false], "c": ["z": -3]]
        let text = value.compactJSON()
        #expect(text == #"{"a":[1,2.5,null,false],"b":"line\nbreak \"q\" \\ tab\t é /","c":{"z":-3}}"#)
        #expect(value.encodedByteCount == text.utf8.count)
    }
}
