import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// Sends and what arrives, read back as raw events from the real Synapse.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixSendTests {
    /// A bot joined (through its invite policy) to a room `alice` created.
    func joinedBot() async throws -> (bot: MatrixTransport, alice: TestHomeserver.User, room: String, inbox: Inbox) {
        let (transport, _, alice, room, inbox) = try await TestHomeserver.joinedBot()
        return (transport, alice, room, inbox)
    }

    @Test func textCardReplyAndResendReadBackRaw() async throws {
        let (bot, alice, room, inbox) = try await joinedBot()
        let channel = Channel.group(room)
        let text = try await bot.send(OutgoingEnvelope(channel: channel, payload: ["type": 1, "text": "hello"]))
        let raw = try await alice.client.event(room: room, eventID: text.messageID)
        #expect(raw["type"] == "m.room.message")
        #expect(raw["content"]?["msgtype"] == "m.text")
        #expect(raw["content"]?["body"] == "hello")

        let card: JSONValue = ["type": 5, "card": "link", "fallback": "Docs <here>", "text": "Docs", "url": "https://example.org/a?b=1&c=2"]
        let cardID = UUID()
        let sent = try await bot.send(OutgoingEnvelope(channel: channel, clientMessageID: cardID, payload: card))
        let again = try await bot.send(OutgoingEnvelope(channel: channel, clientMessageID: cardID, payload: card))
        #expect(again == sent)
        #expect(sent.seq == text.seq + 1)
        let rawCard = try await alice.client.event(room: room, eventID: sent.messageID)["content"]
        #expect(rawCard?["msgtype"] == "chat.parley.card.link")
        #expect(rawCard?["body"] == "Docs <here>")
        #expect(rawCard?["chat.parley.card"] == card)
        #expect(rawCard?["formatted_body"]?.stringValue?.contains("<b>Docs &lt;here&gt;</b>") == true)

        let question = try await TestHomeserver.say(alice, "what time is it?", in: room)
        #expect(await inbox.waitForText("what time is it?"))
        let incoming = try #require(await inbox.messages.first { $0.id == question })
        #expect(incoming.channel == channel)
        #expect(incoming.sender == alice.userID)
        let reply = ReplyReference(messageID: question, seq: incoming.seq, sender: alice.userID, quoted: incoming.payload)
        let answer = try await bot.send(OutgoingEnvelope(channel: channel, payload: ["type": 1, "text": "noon"], replyTo: reply))
        let rawReply = try await alice.client.event(room: room, eventID: answer.messageID)["content"]
        #expect(rawReply?["m.relates_to"] == ["m.in_reply_to": ["event_id": .string(question)]])
        #expect(rawReply?["m.mentions"] == ["user_ids": [.string(alice.userID)]])

        // Only one event per client message id reached the room.
        let page = try await alice.client.messages(room: room, from: nil, direction: "b", limit: 50)
        let cards = (page["chunk"]?.arrayValue ?? []).filter { $0["content"]?["msgtype"] == "chat.parley.card.link" }
        #expect(cards.count == 1)
        let history = try await bot.history(of: channel, after: 0, limit: 10)
        #expect(history.map(\.id) == [text.messageID, sent.messageID, question, answer.messageID])
        #expect(history.map(\.seq) == [1, 2, 3, 4])
        await bot.disconnect()
    }

    @Test func incomingCardsRepliesAndReactionsAreMapped() async throws {
        let (bot, alice, room, inbox) = try await joinedBot()
        let channel = Channel.group(room)
        let greeting = try await bot.send(OutgoingEnvelope(channel: channel, payload: ["type": 1, "text": "hi, I am a bot"]))
        let vcard: JSONValue = ["type": 4, "card": "vcard", "fallback": "Alice", "name": "Alice", "phone": "+1 555"]
        try await TestHomeserver.say(alice, "Alice", in: room, extra: ["msgtype": "chat.parley.card.vcard", "chat.parley.card": vcard])
        try await TestHomeserver.say(alice, "> <\(bot.userID)> hi, I am a bot\n\nhello bot", in: room,
                                     extra: ["m.relates_to": ["m.in_reply_to": ["event_id": .string(greeting.messageID)]]])
        let reaction = try await alice.client.send(room: room, type: "m.reaction", txnID: UUID().uuidString, content: [
            "m.relates_to": ["rel_type": "m.annotation", "event_id": .string(greeting.messageID), "key": "👍"],
        ])
        try await alice.client.redact(room: room, eventID: reaction, txnID: UUID().uuidString)
        #expect(await inbox.wait { events in events.filter { if case .reaction = $0 { return true }; return false }.count == 2 })

        let messages = await inbox.messages
        #expect(messages.map(\.payload) == [vcard, ["type": 1, "text": "hello bot"]])
        #expect(messages.last?.replyTo == ReplyReference(messageID: greeting.messageID, seq: greeting.seq, sender: bot.userID,
                                                         quoted: ["type": 1, "text": "hi, I am a bot"]))
        #expect(await inbox.reactions == [
            // Whose the message reacted to is (the bot's own: it recorded its send), and the event's id.
            ReactionEvent(channel: channel, messageID: greeting.messageID, emoji: "👍", user: alice.userID, added: true,
                          messageSender: bot.userID, id: reaction),
            ReactionEvent(channel: channel, messageID: greeting.messageID, emoji: "👍", user: alice.userID, added: false, id: reaction),
        ])
        await bot.disconnect()
    }

    @Test func reactTwiceThenUnreact() async throws {
        let (bot, botUser, alice, room, _) = try await TestHomeserver.joinedBot()
        let target = try await TestHomeserver.say(alice, "react to me", in: room)
        try await bot.setReaction("🎉", on: target, in: .group(room), added: true)
        try await bot.setReaction("🎉", on: target, in: .group(room), added: true)
        var reactions = try await alice.client.relations(room: room, eventID: target, relType: "m.annotation", eventType: "m.reaction")
        #expect(reactions.map { $0["content"]?["m.relates_to"]?["key"] } == ["🎉"])
        #expect(reactions.first?["sender"]?.stringValue == bot.userID)

        // A second transport without the first one's database finds the reaction on the server.
        let restarted = try TestHomeserver.transport(botUser)
        try await restarted.setReaction("🎉", on: target, in: .group(room), added: false)
        reactions = try await alice.client.relations(room: room, eventID: target, relType: "m.annotation", eventType: "m.reaction")
        #expect(reactions.isEmpty)
        try await bot.setReaction("🎉", on: target, in: .group(room), added: false)
        try await bot.setReaction("🎉", on: target, in: .group(room), added: true)
        reactions = try await alice.client.relations(room: room, eventID: target, relType: "m.annotation", eventType: "m.reaction")
        #expect(reactions.count == 1)
        await bot.disconnect()
    }

    @Test func aliasesResolveToTheirRoom() async throws {
        let (bot, alice, room, _) = try await joinedBot()
        let alias = "#parley-\(UUID().uuidString.prefix(8).lowercased()):localhost"
        try await alice.client.request("PUT", MatrixClient.clientPath("directory", "room", alias), body: ["room_id": .string(room)])
        let receipt = try await bot.send(OutgoingEnvelope(channel: .group(alias), payload: ["type": 1, "text": "via alias"]))
        #expect(try await bot.roomID(for: .group(alias)) == room)
        #expect(try await alice.client.event(room: room, eventID: receipt.messageID)["content"]?["body"] == "via alias")
        await #expect {
            _ = try await bot.send(OutgoingEnvelope(channel: .group("#missing-\(UUID().uuidString.prefix(8).lowercased()):localhost"),
                                                    payload: ["type": 1, "text": "lost"]))
        } throws: { error in
            (error as? ParleyError)?.code == .notFound
        }
        await bot.disconnect()
    }

    @Test func oversizedMessageIsRefusedBeforeSending() async throws {
        let (bot, _, room, _) = try await joinedBot()
        let big = String(repeating: "x", count: 70_000)
        await #expect {
            _ = try await bot.send(OutgoingEnvelope(channel: .group(room), payload: ["type": 1, "text": .string(big)]))
        } throws: { error in
            (error as? ParleyError)?.code == .messageTooLarge
        }
        let fits = String(repeating: "y", count: 60_000)
        _ = try await bot.send(OutgoingEnvelope(channel: .group(room), payload: ["type": 1, "text": .string(fits)]))
        await bot.disconnect()
    }

    @Test(arguments: [Channel.person("alice"), .group("helpdesk"), Channel(kind: .local, id: "notes")])
    func channelsThatAreNotMatrixIdsAreRejected(channel: Channel) async throws {
        let bot = try await TestHomeserver.register("bot")
        let transport = try TestHomeserver.transport(bot)
        await #expect {
            _ = try await transport.send(OutgoingEnvelope(channel: channel, payload: ["type": 1, "text": "x"]))
        } throws: { error in
            (error as? ParleyError)?.code == .invalidArgument && (error as? ParleyError)?.context["channel"] == channel.target
        }
    }
}
