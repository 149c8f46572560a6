import ParleyBots
import ParleyCore
import Testing

@Suite struct BroadcastMessageTests {
    @Test func rendersRecipientFieldsEverywhereInThePayload() throws {
        let payload: JSONValue = .object([
            "type": .int(5), "text": .string("Hi {{recipient.name}}"),
            "url": .string("https://x.example/u/{{recipient.id}}"), "tags": .array([.string("{{recipient.target}}"), .int(1)]),
        ])
        let message = try BroadcastMessage(payload: payload)
        #expect(message.needsNames && !message.isConstant)
        let rendered = message.render(for: .person("alice"), name: "Alice Smith")
        #expect(rendered["text"]?.stringValue == "Hi Alice Smith")
        #expect(rendered["url"]?.stringValue == "https://x.example/u/alice")
        #expect(rendered["tags"] == .array([.string("user:alice"), .int(1)]))
        // Without a profile the id stands in for the name.
        #expect(message.render(for: .group("ops"), name: nil)["text"]?.stringValue == "Hi ops")
    }

    @Test func constantMessagesAreSharedAsIs() throws {
        let message = try BroadcastMessage(text: "Good morning!")
        #expect(message.isConstant && !message.needsNames)
        #expect(message.render(for: .person("a"), name: nil) == TextContent("Good morning!").encoded())
    }

    @Test(arguments: [
        ("Hi {{user.name}}", "field 'text': unknown placeholder '{{user.name}}' in a broadcast; use recipient.id, recipient.name or recipient.target"),
        ("Hi {{recipient.name", "field 'text': unclosed '{{' at offset 3"),
    ])
    func badTemplatesAreRejected(text: String, message: String) {
        let error = #expect(throws: BroadcastError.self) { try BroadcastMessage(text: text) }
        #expect(error?.description == message)
    }

    @Test func keepingRecipientLeavesRecipientPlaceholdersForLater() throws {
        let template = try Template("{{bot.name}} to {{recipient.name}}")
        let text = template.render(BroadcastMessage.keepingRecipient { $0 == "bot.name" ? "News" : nil })
        #expect(text == "News to {{recipient.name}}")
        #expect(try BroadcastMessage(text: text).render(for: .person("bob"), name: "Bob")["text"]?.stringValue == "News to Bob")
    }
}
