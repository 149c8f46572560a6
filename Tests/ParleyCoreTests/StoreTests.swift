import Foundation
import Testing
import ParleyCore
import ParleyTesting

@Suite struct StoreTests {
    static func envelope(_ seq: Int64, channel: Channel = .group("team"), flags: MessageFlags = []) -> Envelope {
        Envelope(id: "m\(seq)", channel: channel, seq: seq, clientMessageID: UUID(), sender: "alice",
                 timestamp: Date(timeIntervalSince1970: 1_000 + Double(seq)), payload: ["type": 1, "text": .string("n\(seq)")],
                 flags: flags, replyTo: seq > 1 ? ReplyReference(messageID: "m1", seq: 1, sender: "alice", quoted: ["type": 1, "text": "n1"]) : nil,
                 reactions: [ReactionSummary(emoji: "👍", users: ["bob"])], visibleTo: seq == 3 ? ["bob"] : nil,
                 extensions: ["sender.name": "Alice"])
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-store-\(UUID().uuidString)/db.sqlite").path
    }

    /// The stores the behavioural tests run on: in memory, and each `TestDatabase` kind.
    static let kinds = ["memory"] + TestDatabase.kinds.map(\.rawValue)

    /// A fresh store of `kind`, and its location (nil in memory) to open it again.
    static func store(_ kind: String) throws -> (store: any MessageStore, location: String?) {
        guard let database = TestDatabase(rawValue: kind) else { return (MemoryMessageStore(), nil) }
        let location = database.location("messages")
        return (try DatabaseMessageStore(path: location), location)
    }

    @Test(arguments: kinds)
    func historyBySeqRangeRoundTripsEveryField(kind: String) throws {
        let store = try Self.store(kind).store
        try store.save((1...10).map { Self.envelope($0) } + [Self.envelope(1, channel: .person("bob"))])
        let range = try store.history(of: .group("team"), in: 3...7, limit: 100)
        #expect(range.map(\.seq) == [3, 4, 5, 6, 7])
        #expect(range.first == Self.envelope(3).with(clientMessageID: range.first?.clientMessageID))
        #expect(try store.history(of: .group("team"), in: 0...Int64.max, limit: 3).map(\.seq) == [8, 9, 10])
        #expect(try store.message(id: "m4")?.replyTo?.messageID == "m1")
    }

    @Test(arguments: kinds)
    func outOfOrderSavesAndUpdatesKeepSeqOrder(kind: String) throws {
        let store = try Self.store(kind).store
        try store.save([Self.envelope(5), Self.envelope(3)])
        try store.save([Self.envelope(4), Self.envelope(1)])
        var updated = Self.envelope(3)
        updated.reactions = [ReactionSummary(emoji: "🎉", users: ["carol", "dave"])]
        try store.save([updated])
        let history = try store.history(of: .group("team"), in: 0...10, limit: 10)
        #expect(history.map(\.seq) == [1, 3, 4, 5])
        #expect(history[1].reactions == updated.reactions)
        #expect(try store.message(id: "m3")?.reactions == updated.reactions)
        #expect(try store.message(id: "m9") == nil)
    }

    @Test func memoryHistoryKeepsTheNewestPerChannel() throws {
        let store = MemoryMessageStore(limitPerChannel: 10)
        try store.save((1...100).map { Self.envelope($0) })
        let kept = try store.history(of: .group("team"), in: 0...1000, limit: 1000)
        #expect(kept.count == 10)
        #expect(kept.last?.seq == 100)
        #expect(kept.map(\.seq) == Array((101 - Int64(kept.count))...100))
    }

    @Test(arguments: TestDatabase.kinds)
    func historyAndConversationsSurviveAReopen(database: TestDatabase) throws {
        let path = database.location("messages")
        do {
            let store = try DatabaseMessageStore(path: path)
            try store.save([Self.envelope(1), Self.envelope(2)])
            try store.saveConversations([Conversation(channel: .group("team"), lastActivity: Date(timeIntervalSince1970: 5), digest: "n1",
                                                      lastMessageID: "m1", lastSeq: 1, unreadCount: 1, isPinned: false)])
            // Saved again: replaced, not added.
            try store.saveConversations([Conversation(channel: .group("team"), lastActivity: Date(timeIntervalSince1970: 5), digest: "n2",
                                                      lastMessageID: "m2", lastSeq: 2, unreadCount: 2, isPinned: true)])
        }
        let reopened = try DatabaseMessageStore(path: path)
        #expect(try reopened.history(of: .group("team"), in: 0...10, limit: 10).map(\.id) == ["m1", "m2"])
        #expect(try reopened.conversations() == [Conversation(channel: .group("team"), lastActivity: Date(timeIntervalSince1970: 5),
                                                             digest: "n2", lastMessageID: "m2", lastSeq: 2, unreadCount: 2, isPinned: true)])
    }

    @Test(arguments: TestDatabase.kinds)
    func noPersistMessagesAreNeverWrittenButStillDelivered(database: TestDatabase) async throws {
        let setup = try HubSetup()
        let path = database.location("bob")
        let (alice, _) = try await setup.online("alice")
        let (bob, events) = try await setup.online("bob", storage: .sqlite(path: path))
        _ = try await alice.send(TextContent("typing…"), to: .person("bob"), options: SendOptions(flags: [.noPersist]))
        _ = try await alice.send(TextContent("kept"), to: .person("bob"))
        #expect(try await collectMessages(events, count: 2).map(\.text) == ["typing…", "kept"])
        #expect(try await bob.history(of: .person("alice")).map(\.text) == ["kept"])
        await bob.close()
        #expect(try DatabaseMessageStore(path: path).history(of: .person("alice"), in: 0...100, limit: 10).count == 1)
        await alice.close()
    }

    /// `.outboxOnly`: sends still go through a durable outbox, but neither history nor
    /// conversations reach the file (the transport keeps its own record).
    @Test func anOutboxOnlyClientWritesNoHistoryOrConversations() async throws {
        let setup = try HubSetup()
        let path = setup.databasePath("bob")
        let (alice, aliceEvents) = try await setup.online("alice")
        let (bob, events) = try await setup.online("bob", storage: .outboxOnly(path: path)) { $0.history = .ids }
        _ = try await alice.send(TextContent("hello"), to: .person("bob"))
        let received = try await collectMessages(events, count: 1)[0]
        _ = try await bob.reply(to: received, with: TextContent("hi"))
        #expect(try await collectMessages(aliceEvents, count: 1).map(\.text) == ["hi"])
        #expect(await bob.conversation(.person("alice"))?.digest == "hi")
        await bob.close()

        let file = try DatabaseMessageStore(path: path)
        #expect(try file.history(of: .person("alice"), in: 0...100, limit: 10).isEmpty)
        #expect(try file.conversations().isEmpty)
        #expect(try DatabaseOutboxStore(path: path).pending().isEmpty)
        #expect(FileManager.default.fileExists(atPath: path))
        await alice.close()
    }

    @Test func messageCacheHonoursCountAndAge() {
        var cache = MessageCache(limits: MessageCache.Limits(count: 3, age: .seconds(10)))
        let start = Date(timeIntervalSince1970: 0)
        for seq in 1...5 {
            let envelope = Self.envelope(Int64(seq))
            cache.insert(Message(id: envelope.id, channel: envelope.channel, seq: envelope.seq, clientMessageID: envelope.clientMessageID,
                                 sender: "a", timestamp: start, content: TextContent("x")), at: start.addingTimeInterval(Double(seq)))
        }
        #expect(cache.count == 3)
        #expect(cache.message(id: "m2", now: start.addingTimeInterval(5)) == nil)
        #expect(cache.message(id: "m3", now: start.addingTimeInterval(5)) != nil)
        #expect(cache.message(id: "m3", now: start.addingTimeInterval(13.5)) == nil)
        #expect(cache.message(id: "m5", now: start.addingTimeInterval(13.5)) != nil)
    }

    @Test(arguments: TestDatabase.kinds)
    func migrationsAreVersioned(database: TestDatabase) throws {
        let path = database.location("both")
        _ = try DatabaseMessageStore(path: path)
        _ = try DatabaseOutboxStore(path: path)
        // Opening again applies nothing twice (a second CREATE TABLE would throw).
        _ = try DatabaseMessageStore(path: path)
        _ = try DatabaseOutboxStore(path: path)
    }
}

extension Envelope {
    func with(clientMessageID: UUID?) -> Envelope {
        var copy = self
        if let clientMessageID { copy.clientMessageID = clientMessageID }
        return copy
    }
}
