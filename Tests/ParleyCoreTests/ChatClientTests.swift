import Foundation
@testable import ParleyCore
import ParleyHub
import Testing
import ParleyTesting

@Suite struct ChatClientTests {
    @Test func sendAndReceiveDecodedContentThroughTheHub() async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice") { $0.senderProfile = Profile(id: "alice", name: "Alice A.", avatar: "a.png") }
        let (bob, bobEvents) = try await setup.online("bob")
        let sent = try await alice.send(GreetingContent(text: "Hi Bob!", summary: "Hello"), to: .person("bob"))
        #expect(sent.sender == "alice")
        #expect(sent.seq == 1)
        let received = try await collectMessages(bobEvents, count: 1)[0]
        #expect(received.id == sent.id)
        #expect(received.channel == .person("alice"))
        #expect((received.content as? GreetingContent) == GreetingContent(text: "Hi Bob!", summary: "Hello"))
        #expect(received.senderName == "Alice A.")
        #expect(await bob.profiles.cachedProfile(of: "alice") == Profile(id: "alice", name: "Alice A.", avatar: "a.png"))
        // The full profile comes from the transport (the hub's directory) and then wins.
        #expect(try await bob.profiles.profile(of: "alice")?.name == "Alice")
        #expect(await bob.profiles.cachedProfile(of: "alice")?.avatar == "https://example.com/alice.png")
        #expect(await bob.conversation(.person("alice"))?.unreadCount == 1)
        #expect(await bob.conversation(.person("alice"))?.digest == "Hello")
        #expect(await alice.conversation(.person("bob"))?.unreadCount == 0)
        await alice.close()
        await bob.close()
    }

    @Test func repliesQuoteAndReactionsAggregate() async throws {
        let setup = try HubSetup()
        let (alice, aliceEvents) = try await setup.online("alice")
        let (bob, bobEvents) = try await setup.online("bob")
        let question = try await alice.send(TextContent("lunch?"), to: .person("bob"))
        let received = try await collectMessages(bobEvents, count: 1)[0]
        let answer = try await bob.reply(to: received, with: TextContent("yes"))
        #expect(answer.replyTo?.messageID == question.id)
        let quoted = try await collectMessages(aliceEvents, count: 1)[0]
        #expect(quoted.replyTo == ReplyReference(messageID: question.id, seq: question.seq, sender: "alice", quoted: ["type": 1, "text": "lunch?"]))

        try await bob.react("👍", to: received)
        let event = try await firstEvent(aliceEvents) { if case .reaction = $0 { return true } else { return false } }
        guard case .reaction(let reaction, let updated) = event else { Issue.record("not a reaction"); return }
        #expect(reaction == ReactionEvent(channel: .person("bob"), messageID: question.id, emoji: "👍", user: "bob", added: true,
                                             messageSender: "alice"))
        #expect(updated?.reactions == [ReactionSummary(emoji: "👍", users: ["bob"])])
        try await bob.unreact("👍", from: received)
        _ = try await firstEvent(aliceEvents) { if case .reaction(let r, _) = $0 { return !r.added } else { return false } }
        #expect(try await alice.message(id: question.id)?.reactions == [])
        await alice.close()
        await bob.close()
    }

    @Test func forwardingKeepsUnknownContentUnchanged() async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice")
        let (bob, bobEvents) = try await setup.online("bob")
        let (_, carolEvents) = try await setup.online("carol")
        let poll: JSONValue = ["type": 4242, "fallback": "Poll: lunch?", "options": ["a", "b"]]
        let original = try await alice.send(try ContentRegistry().decode(poll), to: .person("bob"))
        #expect(original.content is UnknownContent)
        let atBob = try await collectMessages(bobEvents, count: 1)[0]
        #expect(atBob.content.encoded() == poll)
        _ = try await bob.forward(atBob, to: .person("carol"))
        let atCarol = try await collectMessages(carolEvents, count: 1)[0]
        #expect(atCarol.content.encoded() == poll)
        #expect(atCarol.content.fallback == "Poll: lunch?")
        #expect(atCarol.extensions["forward.id"] == .string(original.id))
        await alice.close()
        await bob.close()
    }

    @Test func aTwoMegabytePayloadIsRefusedAndNothingReachesTheHub() async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice")
        let huge = TextContent(String(repeating: "x", count: 2 * 1024 * 1024))
        await #expect {
            try await alice.send(huge, to: .person("bob"))
        } throws: { error in
            (error as? ParleyError)?.code == .messageTooLarge
        }
        let results = await alice.batchSend([TextContent("small"), huge], to: [.person("carol")])
        #expect(results.count == 2)
        #expect((try? results[0].get()) != nil)
        #expect(throws: ParleyError.self) { try results[1].get() }
        #expect(try setup.hub.messages(in: .person("alice"), seenBy: "bob").isEmpty)
        #expect(try setup.hub.messages(in: .person("alice"), seenBy: "carol").count == 1)
        #expect(await alice.outbox.queuedCount == 0)
        await alice.close()
    }

    @Test func thousandConcurrentSendsFromTenClientsArriveOnceInPerSenderOrder() async throws {
        let senders = (0..<10).map { "sender\($0)" }
        let setup = try HubSetup(users: senders + ["sink"])
        try setup.hub.createGroup("load", members: senders + ["sink"])
        let (sink, sinkEvents) = try await setup.online("sink")
        var online: [ChatClient] = []
        for sender in senders { online.append(try await setup.online(sender).0) }
        let clients = online
        let sent = try await withTimeout(seconds: 120) {
            try await withThrowingTaskGroup(of: [Message].self) { group in
                for (index, client) in clients.enumerated() {
                    // Per client 50 single sends and 5 batches of 10, all at once: 550 concurrent calls, 1,000 messages.
                    for single in 0..<50 {
                        group.addTask { [try await client.send(TextContent("s\(index) single \(single)"), to: .group("load"))] }
                    }
                    for batch in 0..<5 {
                        group.addTask {
                            let contents = (0..<10).map { TextContent("s\(index) b\(batch) m\($0)") as any MessageContent }
                            return try await client.batchSend(contents, to: [.group("load")], options: SendOptions()).map { try $0.get() }
                        }
                    }
                }
                var all: [Message] = []
                for try await messages in group { all += messages }
                return all
            }
        }
        #expect(sent.count == 1000)
        let received = try await collectMessages(sinkEvents, count: 1000, seconds: 120)
        #expect(Set(received.map(\.id)).count == 1000)
        #expect(Set(received.compactMap(\.text)) == Set(sent.compactMap(\.text)))
        for sender in senders {
            let fromSender = received.filter { $0.sender == sender }
            #expect(fromSender.count == 100)
            // Seen in the order the sender's outbox got them accepted…
            let ackOrder = sent.filter { $0.sender == sender }.sorted { $0.seq < $1.seq }.map(\.id)
            #expect(fromSender.map(\.id) == ackOrder)
            // …and each batch in the order it was given.
            for batch in 0..<5 {
                let texts = fromSender.compactMap(\.text).filter { $0.contains(" b\(batch) ") }
                #expect(texts == (0..<10).map { "s\(sender.dropFirst(6)) b\(batch) m\($0)" })
            }
        }
        for sender in senders { #expect(try setup.hub.messages(in: .group("load"), seenBy: "sink").filter { $0.sender == sender }.count == 100) }
        for client in clients { await client.close() }
        await sink.close()
    }

    @Test func aResendAfterADroppedConnectionDoesNotDuplicate() async throws {
        let setup = try HubSetup()
        // Reconnecting is left to the test, so a retry meets the connection down.
        let (alice, aliceEvents) = try await setup.online("alice") { $0.reconnect = nil }
        let (_, bobEvents) = try await setup.online("bob")
        setup.hub.loseNextAcks(1, from: "alice")
        let sent = Task { try await alice.send(TextContent("are you there?"), to: .person("bob")) }
        // The hub stored and delivered it, but the receipt was lost: the outbox waits to retry.
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        #expect(try setup.hub.messages(in: .person("alice"), seenBy: "bob").count == 1)
        setup.hub.dropConnection(of: "alice")
        _ = try await firstEvent(aliceEvents) { if case .connectionState(.disconnected) = $0 { return true } else { return false } }
        // A retry while the connection is down fails too, and is scheduled again.
        await setup.clock.advance(by: .seconds(1))
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        try await alice.connect()
        await setup.clock.advance(by: .seconds(60))
        let message = try await withTimeout { try await sent.value }
        let atBob = try await collectMessages(bobEvents, count: 1)
        #expect(atBob.map(\.id) == [message.id])
        #expect(try setup.hub.storedCount(of: message.clientMessageID) == 1)
        #expect(try setup.hub.messages(in: .person("alice"), seenBy: "bob").count == 1)
        await alice.close()
    }

    @Test func sendsLeftQueuedAreDeliveredWhenTheClientStartsAgain() async throws {
        let setup = try HubSetup()
        let path = setup.databasePath("alice")
        let (_, bobEvents) = try await setup.online("bob")
        setup.hub.failSends(to: .person("bob"), with: ParleyError(.serverError, "maintenance"))
        let first = try setup.client("alice", storage: .sqlite(path: path))
        try await first.connect()
        let pending = Task { try await first.send(TextContent("while you were away"), to: .person("bob")) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        await first.close()
        await #expect { try await pending.value } throws: { ($0 as? ParleyError)?.code == .cancelled }

        setup.hub.failSends(to: .person("bob"), with: nil)
        let second = try setup.client("alice", storage: .sqlite(path: path))
        try await second.connect()
        let delivered = try await collectMessages(bobEvents, count: 1)
        #expect(delivered.map(\.text) == ["while you were away"])
        try await withTimeout { while try await second.history(of: .person("bob")).isEmpty { try Task.checkCancellation(); await Task.yield() } }
        #expect(try await second.history(of: .person("bob")).map(\.text) == ["while you were away"])
        await second.close()
    }

    @Test func duplicatesAreDroppedAndHiddenMessagesFollowThePolicy() async throws {
        let setup = try HubSetup()
        let (bob, events) = try await setup.online("bob") { $0.hiddenMessages = .notice("(a message for others)") }
        let envelope = Envelope(id: "m1", channel: .group("team"), seq: 1, clientMessageID: UUID(), sender: "alice",
                                timestamp: setup.clock.now(), payload: ["type": 1, "text": "hi"])
        var secret = envelope
        secret.id = "m2"
        secret.seq = 2
        secret.visibleTo = ["carol"]
        secret.payload = ["type": 1, "text": "only for carol"]
        await bob.handle(.message(envelope))
        await bob.handle(.message(envelope))
        await bob.handle(.message(secret))
        let received = try await collectMessages(events, count: 2)
        #expect(received.map(\.id) == ["m1", "m2"])
        #expect(received[1].text == "(a message for others)")
        #expect(try await bob.history(of: .group("team")).map(\.text) == ["hi", "(a message for others)"])
        #expect(await bob.conversation(.group("team"))?.unreadCount == 2)
        await bob.close()
    }

    @Test(arguments: ["memory", "sqlite"])
    func lateArrivalsAreDeliveredAndTheirRepeatsDropped(storage: String) async throws {
        let setup = try HubSetup()
        let (bob, events) = try await setup.online("bob", storage: storage == "memory" ? .memory : .sqlite(path: setup.databasePath("bob")))
        func envelope(_ id: String, _ seq: Int64, flags: MessageFlags = []) -> Envelope {
            Envelope(id: id, channel: .group("team"), seq: seq, clientMessageID: UUID(), sender: "alice",
                     timestamp: setup.clock.now(), payload: ["type": 1, "text": .string(id)], flags: flags)
        }
        for event in [envelope("third", 3), envelope("second", 2), envelope("third", 3), envelope("second", 2),
                      envelope("ping", 4, flags: [.noPersist]), envelope("ping", 4, flags: [.noPersist]), envelope("first", 1)] {
            await bob.handle(.message(event))
        }
        #expect(try await collectMessages(events, count: 4).map(\.text) == ["third", "second", "ping", "first"])
        #expect(try await bob.history(of: .group("team")).map(\.text) == ["first", "second", "third"])
        #expect(await bob.conversation(.group("team"))?.unreadCount == 4)
        await bob.close()
    }

    @Test func theFilterHookCanReplaceOrDrop() async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice")
        let (bob, events) = try await setup.online("bob")
        await bob.setMessageFilter { message in
            guard let text = message.text else { return .deliver(message) }
            if text.contains("spam") { return .drop }
            var cleaned = message
            cleaned.content = TextContent(text.uppercased())
            return .deliver(cleaned)
        }
        _ = try await alice.send(TextContent("buy spam"), to: .person("bob"))
        _ = try await alice.send(TextContent("hello"), to: .person("bob"))
        let received = try await collectMessages(events, count: 1)
        #expect(received.map(\.text) == ["HELLO"])
        #expect(try await bob.history(of: .person("alice")).map(\.text) == ["HELLO"])
        await alice.close()
        await bob.close()
    }

    @Test func membershipChangesAreEvents() async throws {
        let setup = try HubSetup()
        try setup.hub.createGroup("team", members: ["alice", "bob"])
        let (bob, events) = try await setup.online("bob")
        try setup.hub.addMember("carol", to: "team", by: "alice")
        let event = try await firstEvent(events) { if case .membership = $0 { return true } else { return false } }
        guard case .membership(let change) = event else { return }
        #expect(change.channel == .group("team"))
        #expect(change.user == "carol")
        #expect(change.by == "alice")
        await bob.close()
    }

    @Test func undecodableMessagesReachTheErrorHandler() async throws {
        let setup = try HubSetup()
        let (bob, events) = try await setup.online("bob")
        let handled = Locked<[ParleyError]>([])
        await bob.setErrorHandler { error in handled.mutate { $0.append(error) } }
        let bad = Envelope(id: "x", channel: .person("alice"), seq: 1, clientMessageID: UUID(), sender: "alice",
                           timestamp: setup.clock.now(), payload: ["type": 2, "url": 42])
        await bob.handle(.message(bad))
        let event = try await firstEvent(events) { if case .error = $0 { return true } else { return false } }
        guard case .error(let error) = event else { return }
        #expect(error.code == .invalidContent)
        #expect(error.context["field"] == "url")
        #expect(error.context["messageID"] == "x")
        #expect(handled.value == [error])
        await bob.close()
    }
}
