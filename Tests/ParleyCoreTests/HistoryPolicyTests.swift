import Foundation
@testable import ParleyCore
import ParleyHub
import Testing
import ParleyTesting

/// `HistoryPolicy.ids`: nothing of a message is kept but its id, events and sends are
/// unchanged, and repeats are still dropped.
@Suite struct HistoryPolicyTests {
    @Test(arguments: ["memory", "sqlite"])
    func nothingIsKeptButEventsAndConversationsAre(storage: String) async throws {
        let setup = try HubSetup()
        let (alice, aliceEvents) = try await setup.online("alice")
        let bobStorage: ChatStorage = storage == "memory" ? .memory : .sqlite(path: setup.databasePath("bob"))
        let (bob, bobEvents) = try await setup.online("bob", storage: bobStorage) { $0.history = .ids }
        let question = try await alice.send(TextContent("lunch?"), to: .person("bob"))
        let received = try await collectMessages(bobEvents, count: 1)[0]
        #expect(received.id == question.id)
        #expect(received.text == "lunch?")
        let answer = try await bob.reply(to: received, with: TextContent("yes"))
        #expect(answer.replyTo?.messageID == question.id)
        let answerSeenByAlice = try await collectMessages(aliceEvents, count: 1)[0]
        #expect(answerSeenByAlice.text == "yes")

        #expect(try await bob.history(of: .person("alice")).isEmpty)
        #expect(try await bob.message(id: question.id) == nil)
        #expect(try await bob.message(id: answer.id) == nil)
        #expect(await bob.cachedMessageCount == 0)
        #expect(await bob.pendingWrites.isEmpty)
        let conversation = try #require(await bob.conversation(.person("alice")))
        #expect(conversation.unreadCount == 1)
        #expect(conversation.lastSeq == answer.seq)
        #expect(conversation.digest == "yes")
        // The other side (history kept) is unaffected.
        #expect(try await alice.history(of: .person("bob")).map(\.text) == ["lunch?", "yes"])

        // Reactions still go out; a reaction event carries no message (none is kept).
        try await bob.react("👍", to: received)
        let seenByAlice = try await firstEvent(aliceEvents) { if case .reaction = $0 { return true } else { return false } }
        guard case .reaction(_, let withReaction) = seenByAlice else { Issue.record("not a reaction"); return }
        #expect(withReaction?.reactions == [ReactionSummary(emoji: "👍", users: ["bob"])])
        try await alice.react("🎉", to: answerSeenByAlice)
        let event = try await firstEvent(bobEvents) { if case .reaction = $0 { return true } else { return false } }
        guard case .reaction(let reaction, let updated) = event else { Issue.record("not a reaction"); return }
        #expect(reaction.emoji == "🎉")
        #expect(updated == nil)
        await alice.close()
        await bob.close()
    }

    @Test(arguments: ["memory", "sqlite"])
    func repeatsAreDroppedByIdAlone(storage: String) async throws {
        let setup = try HubSetup()
        let bobStorage: ChatStorage = storage == "memory" ? .memory : .sqlite(path: setup.databasePath("bob"))
        let (bob, events) = try await setup.online("bob", storage: bobStorage) { $0.history = .ids }
        func envelope(_ id: String, _ seq: Int64, sender: String = "alice", flags: MessageFlags = []) -> Envelope {
            Envelope(id: id, channel: .group("team"), seq: seq, clientMessageID: UUID(), sender: sender,
                     timestamp: setup.clock.now(), payload: ["type": 1, "text": .string(id)], flags: flags)
        }
        // Out of order, repeated, noPersist, and this account's own message (an echo) among them.
        for event in [envelope("third", 3), envelope("second", 2), envelope("third", 3), envelope("second", 2),
                      envelope("ping", 4, flags: [.noPersist]), envelope("ping", 4, flags: [.noPersist]),
                      envelope("mine", 5, sender: "bob"), envelope("first", 1), envelope("mine", 5, sender: "bob"),
                      envelope("first", 1), envelope("fourth", 6)] {
            await bob.handle(.message(event))
        }
        #expect(try await collectMessages(events, count: 5).map(\.text) == ["third", "second", "ping", "first", "fourth"])
        #expect(await bob.conversation(.group("team"))?.unreadCount == 5)
        #expect(await bob.conversation(.group("team"))?.lastSeq == 6)
        #expect(try await bob.history(of: .group("team")).isEmpty)
        await bob.close()
    }

    @Test func eachChannelKeepsTheIdsOfItsNewestMessages() async throws {
        let setup = try HubSetup()
        let (bob, events) = try await setup.online("bob") { configuration in
            configuration.history = .ids
            configuration.memoryHistoryLimit = 3
        }
        func envelope(_ channel: Channel, _ seq: Int64) -> Envelope {
            Envelope(id: "\(channel.id)-\(seq)", channel: channel, seq: seq, clientMessageID: UUID(), sender: "alice",
                     timestamp: setup.clock.now(), payload: ["type": 1, "text": .string("\(channel.id) \(seq)")])
        }
        // Five in each channel, interleaved: each channel's ring holds its own last three.
        for seq in Int64(1)...5 {
            await bob.handle(.message(envelope(.group("team"), seq)))
            await bob.handle(.message(envelope(.group("other"), seq)))
        }
        for seq in Int64(3)...5 { await bob.handle(.message(envelope(.group("team"), seq))) }
        await bob.handle(.message(envelope(.group("other"), 4)))
        await bob.handle(.message(envelope(.group("other"), 6)))
        let texts = try await collectMessages(events, count: 11).map(\.text)
        #expect(texts.suffix(1) == ["other 6"])
        #expect(Set(texts).count == 11)
        await bob.close()
    }

    @Test func aMessageBelowTheLastSentSeqIsNewUntilSeen() async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice")
        let (bob, events) = try await setup.online("bob") { $0.history = .ids }
        // Bob's own send sets the channel's last seq above a message still on its way to him.
        let late = Envelope(id: "late", channel: .person("alice"), seq: 1, clientMessageID: UUID(), sender: "alice",
                            timestamp: setup.clock.now(), payload: ["type": 1, "text": "late"])
        _ = try await bob.send(TextContent("first"), to: .person("alice"))
        _ = try await bob.send(TextContent("second"), to: .person("alice"))
        #expect(await bob.conversation(.person("alice"))?.lastSeq == 2)
        await bob.handle(.message(late))
        await bob.handle(.message(late))
        _ = try await alice.send(TextContent("after"), to: .person("bob"))
        #expect(try await collectMessages(events, count: 2).map(\.text) == ["late", "after"])
        await alice.close()
        await bob.close()
    }
}
