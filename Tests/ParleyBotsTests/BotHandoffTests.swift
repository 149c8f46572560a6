import Foundation
import ParleyBots
import ParleyCore
import Testing
import ParleyTesting

/// Hand-off to humans: the ticket card, the paused conversation, take / reply / resolve.
@Suite struct BotHandoffTests {
    @Test func ticketTakeReplyResolve() async throws {
        let fixture = try BotFixture()
        try await fixture.createAgents()
        try await fixture.start()
        let agents = Channel.group("agents")
        try await fixture.say("/refund")
        try await fixture.say("123456")
        _ = try fixture.botTexts()

        let ticket = try #require(try fixture.newMessages(in: agents, seenBy: "carol").last?.content as? TicketContent)
        #expect(ticket.number == 1)
        #expect(ticket.user.name == "Alice")
        #expect(ticket.note == "Refund for 123456")
        #expect(ticket.recent.suffix(3) == ["Support: What is your order number?", "Alice: 123456", "Support: Order 123456: refund requested"])

        // Paused: the user's messages go to the agents, never an automatic answer; while no
        // agent has the ticket, the customer hears their place in the queue.
        try await fixture.say("/help")
        #expect(try fixture.botTexts() == ["You are number 1 in the queue; an agent will be with you soon."])
        #expect(try fixture.botTexts(in: agents, seenBy: "carol") == ["#1 Alice: /help"])

        try await fixture.say("/take 1", as: "carol", in: agents)
        try await fixture.say("/reply 1 Refund is on its way.", as: "carol", in: agents)
        #expect(try fixture.botTexts() == ["Refund is on its way."])
        try await fixture.say("/resolve 1", as: "carol", in: agents)
        #expect(try fixture.botTexts(in: agents, seenBy: "carol") == ["Ticket #1 taken by Carol.", "Ticket #1 resolved by Carol."])

        try await fixture.say("/echo back again")
        #expect(try fixture.botTexts() == ["back again"])
        await fixture.shutdown()
    }

    @Test func withoutTheQueueGroupTheBotKeepsAnswering() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/refund")
        try await fixture.say("123456")
        _ = try fixture.botTexts()
        try await fixture.say("/echo still me")
        #expect(try fixture.botTexts() == ["still me"])
        #expect(fixture.log.contains { $0.contains("handoff failed: ticket card not posted") })
        await fixture.shutdown()
    }

    @Test(arguments: [
        ("/take 9", "No open ticket #9."),
        ("/take x", "Usage: /take <ticket>"),
        ("/reply 1", "Usage: /reply <ticket> <text>"),
    ])
    func agentCommandErrors(input: String, answer: String) async throws {
        let fixture = try BotFixture()
        try await fixture.createAgents()
        try await fixture.start()
        try await fixture.say("/refund")
        try await fixture.say("123456")
        _ = try fixture.newMessages(in: .group("agents"), seenBy: "carol")
        try await fixture.say(input, as: "carol", in: .group("agents"))
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol") == [answer])
        await fixture.shutdown()
    }

    /// Two agents reaching for one ticket: the second is told who has it, and it stays theirs.
    @Test func aTicketTakenByOneAgentIsNotTakenByAnother() async throws {
        let fixture = try BotFixture()
        try await fixture.createAgents()
        try fixture.hub.addMember("bob", to: "agents")
        try await fixture.start()
        let agents = Channel.group("agents")
        try await fixture.say("/refund")
        try await fixture.say("123456")
        _ = try fixture.newMessages(in: agents, seenBy: "carol")
        try await fixture.say("/take 1", as: "carol", in: agents)
        try await fixture.say("/take 1", as: "bob", in: agents)
        #expect(try fixture.botTexts(in: agents, seenBy: "carol") == ["Ticket #1 taken by Carol.", "Ticket #1 is taken by carol already."])
        #expect(try fixture.runningHost.store.tickets(queue: "agents", number: 1).map(\.agent) == ["carol"])
        await fixture.shutdown()
    }
}

/// Greeting once, allow lists, hostile input, concurrency.
@Suite struct BotGuardTests {
    static let greeter = """
        id: greeter
        name: Greeter
        greeting:
          - send: { card: greeting, text: "Hi {{user.name}}! Type /help." }
        commands:
          echo:
            args: [text]
            reply: "{{args.text}}"
        """

    @Test(arguments: TestDatabase.kinds) func greetingOncePerUserBeforeTheFirstMessageEvenAfterARestart(database: TestDatabase) async throws {
        let path = database.location("engine")
        let fixture = try BotFixture(yaml: Self.greeter)
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("/echo one")
        try await fixture.say("/echo two")
        #expect(try fixture.botTexts(in: .person("greeter")) == ["Hi Alice! Type /help.", "one", "two"])
        try await fixture.runningHost.stop()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("/echo three")
        #expect(try fixture.botTexts(in: .person("greeter")) == ["three"])
        await fixture.shutdown()
    }

    @Test func greetingOncePerGroupOnJoin() async throws {
        let fixture = try BotFixture(yaml: Self.greeter)
        try await fixture.start()
        try fixture.hub.createGroup("team", members: ["alice", "greeter"])
        try await fixture.idle()
        #expect(try fixture.botTexts(in: .group("team")) == ["Hi ! Type /help."])
        try fixture.hub.addMember("bob", to: "team")
        try await fixture.idle()
        #expect(try fixture.botTexts(in: .group("team")) == [])
        await fixture.shutdown()
    }

    @Test func allowListsIgnoreEveryoneElse() async throws {
        let yaml = """
            id: private
            allow:
              users: [alice]
              channels: ["group:helpdesk"]
            commands:
              echo:
                args: [text]
                reply: "{{args.text}}"
            """
        let fixture = try BotFixture(yaml: yaml)
        try fixture.hub.createGroup("helpdesk", members: ["private", "bob"])
        try fixture.hub.createGroup("other", members: ["private", "bob"])
        try await fixture.start()
        try await fixture.say("/echo hi", as: "bob")
        try await fixture.say("/echo there", as: "bob", in: .group("other"))
        try await fixture.say("/echo desk", as: "bob", in: .group("helpdesk"))
        try await fixture.say("/echo me")
        #expect(try fixture.botTexts(in: .person("private"), seenBy: "bob") == [])
        #expect(try fixture.botTexts(in: .group("other"), seenBy: "bob") == [])
        #expect(try fixture.botTexts(in: .group("helpdesk"), seenBy: "bob") == ["desk"])
        #expect(try fixture.botTexts(in: .person("private")) == ["me"])
        #expect(fixture.log.contains { $0.contains("ignored: not allowed") && $0.contains("user=bob") })
        await fixture.shutdown()
    }

    @Test func hostileInputFinishesInBoundedTimeAndTheBotKeepsAnswering() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        let started = ContinuousClock.now
        // Catastrophic backtracking: PCRE2's limits stop it; the trigger does not match.
        try await fixture.say(String(repeating: "a", count: 50_000))
        // One megabyte: refused with a log line.
        try await fixture.say(String(repeating: "x", count: 1_000_000), as: "bob")
        // Invalid UTF-8 arrives as replacement characters: just text.
        try await fixture.say(String(decoding: [0x2F, 0x65, 0x63, 0x68, 0x6F, 0x20, 0xFF, 0xFE, 0x41], as: UTF8.self), as: "carol")
        // A content type the bot does not know: ignored, the bot carries on.
        _ = try await fixture.hub.connect(user: "carol").send(OutgoingEnvelope(channel: .person("support"), payload: ["type": 999, "x": [1, 2]]))
        try await fixture.say("/echo still here", as: "carol")
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(try fixture.botTexts() == ["Sorry, I didn't get that. Try /help."])
        #expect(try fixture.botTexts(seenBy: "bob") == [])
        #expect(try fixture.botTexts(seenBy: "carol") == ["\u{FFFD}\u{FFFD}A", "still here"])
        #expect(fixture.log.contains { $0.contains("message refused: too large") && $0.contains("bytes=1000000") })
        #expect(fixture.log.contains { $0.contains("ignored: not text") && $0.contains("type=999") })
        await fixture.shutdown()
    }

    @Test func aDroppedConnectionIsReconnectedAndMissedMessagesAnswered() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/echo before")
        fixture.hub.dropConnection(of: "support")
        try await fixture.idle()
        try await fixture.say("/echo after")
        #expect(try fixture.botTexts() == ["before", "after"])
        #expect(fixture.log.contains { $0.contains("reconnected attempts=1") })
        await fixture.shutdown()
    }

    /// Each failed attempt is logged; the host is idle during the client's backoff (the clock
    /// moves on), busy again once the next attempt is made, and the attempts are counted.
    @Test func failedReconnectAttemptsAreLoggedAndCounted() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        fixture.hub.refuseNextConnects(2, of: "support")
        fixture.hub.dropConnection(of: "support")
        try await fixture.idle()
        let failures = { fixture.log.filter { $0.contains("reconnect failed") }.count }
        #expect(failures() == 1)
        try await fixture.advance(.seconds(60))
        #expect(failures() == 2)
        try await fixture.advance(.seconds(60))
        #expect(failures() == 2)
        #expect(fixture.log.contains { $0.contains("reconnected attempts=3") })
        try await fixture.say("/echo after")
        #expect(try fixture.botTexts() == ["after"])
        await fixture.shutdown()
    }

    @Test func oneConversationInOrderManyConcurrently() async throws {
        let users = (1...20).map { Profile(id: "user\($0)", name: "User \($0)") }
        let fixture = try BotFixture(users: users)
        try await fixture.start()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for user in users {
                group.addTask {
                    let client = try await fixture.client(user.id)
                    for index in 1...10 { _ = try await client.send(TextContent("/echo \(user.id) \(index)"), to: .person("support")) }
                }
            }
            try await group.waitForAll()
        }
        try await fixture.idle()
        for user in users {
            let texts = try fixture.botTexts(seenBy: user.id)
            #expect(texts == (1...10).map { "\(user.id) \($0)" })
        }
        await fixture.shutdown()
    }
}
