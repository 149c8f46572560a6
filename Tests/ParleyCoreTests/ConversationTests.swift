import Foundation
import Testing
import ParleyCore

@Suite struct ConversationTests {
    @Test func orderedByActivityWithPinnedOnTopAndUnreadCounts() async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice")
        let (carol, _) = try await setup.online("carol")
        let (bob, events) = try await setup.online("bob")
        _ = try await alice.send(TextContent("one"), to: .person("bob"))
        await setup.clock.advance(by: .seconds(1))
        _ = try await carol.send(LinkContent(text: "Docs", url: "https://e.com"), to: .person("bob"))
        await setup.clock.advance(by: .seconds(1))
        _ = try await alice.send(TextContent("two"), to: .person("bob"))
        _ = try await collectMessages(events, count: 3)
        var list = await bob.conversations()
        #expect(list.map(\.channel) == [.person("alice"), .person("carol")])
        #expect(list.map(\.unreadCount) == [2, 1])
        #expect(list.map(\.digest) == ["two", "[Link] Docs"])
        try await bob.setPinned(true, for: .person("carol"))
        try await bob.markRead(.person("alice"))
        list = await bob.conversations()
        #expect(list.map(\.channel) == [.person("carol"), .person("alice")])
        #expect(list.map(\.unreadCount) == [1, 0])
        #expect(await bob.totalUnread == 1)
        await #expect(throws: ParleyError.self) { try await bob.markRead(.person("nobody")) }
        await alice.close()
        await bob.close()
        await carol.close()
    }

    @Test func localConversationsNeedTheLocalPrefixAndNeverSend() async throws {
        let setup = try HubSetup()
        let (bob, events) = try await setup.online("bob")
        let notes = try #require(Channel(target: "local:notes"))
        try await bob.createLocalConversation(notes)
        await #expect(throws: ParleyError(.invalidArgument, "'user:alice' is not a local conversation id: local ids start with 'local:'",
                                          context: ["channel": "user:alice"])) {
            try await bob.createLocalConversation(.person("alice"))
        }
        let note = try await bob.insertLocalMessage(TextContent("remember the milk"), into: notes)
        #expect(try await collectMessages(events, count: 1).map(\.id) == [note.id])
        #expect(await bob.conversation(notes)?.digest == "remember the milk")
        #expect(try await bob.history(of: notes).map(\.text) == ["remember the milk"])
        await #expect { try await bob.send(TextContent("x"), to: notes) } throws: { ($0 as? ParleyError)?.code == .invalidArgument }
        #expect(setup.hub.channelCount == 0)
        await bob.close()
    }

    @Test func conversationsPersistWithSQLiteStorage() async throws {
        let setup = try HubSetup()
        let path = setup.databasePath("alice")
        let alice = try setup.client("alice", storage: .sqlite(path: path))
        try await alice.connect()
        _ = try await alice.send(TextContent("hello"), to: .person("bob"))
        try await alice.setPinned(true, for: .person("bob"))
        await alice.close()
        let again = try setup.client("alice", storage: .sqlite(path: path))
        #expect(await again.conversations().map(\.channel) == [.person("bob")])
        #expect(await again.conversations().first?.isPinned == true)
        #expect(try await again.history(of: .person("bob")).map(\.text) == ["hello"])
    }
}
