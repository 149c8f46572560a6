import Foundation
import ParleyBots
import ParleyCore
import Testing

/// Who may act on hand-off tickets: members of the queue's channel, there and nowhere else.
@Suite struct BotHandoffAccessTests {
    static let agents = Channel.group("agents")
    static let openTicket = Ticket(number: 1, bot: "support", channel: "user:alice", user: "alice", queue: "agents",
                                      openedAt: Date(timeIntervalSince1970: 1_796_112_000),
                                      customer: VCardContent(user: "alice", name: "Alice"), note: "Refund for 123456")

    /// Alice's refund handed off to `group:agents` (the bot and Carol) as ticket 1; what was
    /// sent so far is marked seen.
    static func handedOff(store: MemoryBotStore = MemoryBotStore(), yaml: String? = nil, options: BotHostOptions = BotHostOptions(),
                          configure: (inout BotConnection) -> Void = { _ in }) async throws -> BotFixture {
        let fixture = try BotFixture(yaml: yaml)
        try await fixture.createAgents()
        try await fixture.start(store: store, options: options, configure: configure)
        try await fixture.say(yaml == nil ? "/refund" : "/human")
        if yaml == nil { try await fixture.say("123456") }
        _ = try fixture.botTexts()
        _ = try fixture.newMessages(in: agents, seenBy: "carol")
        return fixture
    }

    @Test func anAgentAddedToTheQueueGroupTakesRepliesAndResolves() async throws {
        let fixture = try await Self.handedOff()
        try fixture.hub.addMember("bob", to: "agents")
        try await fixture.say("/take 1", as: "bob", in: Self.agents)
        try await fixture.say("/reply 1 Refund is on its way.", as: "bob", in: Self.agents)
        #expect(try fixture.botTexts() == ["Refund is on its way."])
        try await fixture.say("/resolve 1", as: "bob", in: Self.agents)
        #expect(try fixture.botTexts(in: Self.agents, seenBy: "carol") == ["Ticket #1 taken by Bob Stone.", "Ticket #1 resolved by Bob Stone."])
        #expect(!fixture.log.contains { $0.contains("agent command refused") })
        await fixture.shutdown()
    }

    @Test func anAgentsReplyOverTheSizeLimitIsRefusedLikeAnyMessage() async throws {
        let fixture = try await Self.handedOff(options: BotHostOptions(maxMessageBytes: 64))
        try fixture.hub.addMember("bob", to: "agents")
        try await fixture.say("/reply 1 " + String(repeating: "x", count: 100), as: "bob", in: Self.agents)
        #expect(try fixture.botTexts() == [])
        #expect(fixture.log.contains { $0.contains("message refused: too large") && $0.contains("user=bob") })
        try await fixture.say("/reply 1 short", as: "bob", in: Self.agents)
        #expect(try fixture.botTexts() == ["short"])
        await fixture.shutdown()
    }

    @Test(arguments: ["/take 1", "/reply 1 hi", "/resolve 1"])
    func aNonMemberInTheirOwnConversationChangesNothingAndHearsNothing(command: String) async throws {
        let store = MemoryBotStore()
        let fixture = try await Self.handedOff(store: store)
        try await fixture.say(command, as: "bob")
        #expect(try fixture.botTexts(seenBy: "bob") == [])
        #expect(try fixture.botTexts() == [])
        #expect(try fixture.botTexts(in: Self.agents, seenBy: "carol") == [])
        #expect(try store.tickets(queue: "agents", number: 1) == [Self.openTicket])
        #expect(fixture.log.contains {
            $0.contains("warn support agent command refused") && $0.contains("ticket=1") && $0.contains("user=bob") && $0.contains("channel=user:bob")
        })
        // Still Alice's open ticket: her next line goes to the agents.
        try await fixture.say("anyone there?")
        #expect(try fixture.botTexts(in: Self.agents, seenBy: "carol") == ["#1 Alice: anyone there?"])
        await fixture.shutdown()
    }

    @Test func theCustomerCannotResolveTheirOwnTicket() async throws {
        let store = MemoryBotStore()
        let fixture = try await Self.handedOff(store: store)
        try await fixture.say("/resolve 1")
        #expect(try store.tickets(queue: "agents", number: 1) == [Self.openTicket])
        #expect(try fixture.botTexts() == [])
        #expect(try fixture.botTexts(in: Self.agents, seenBy: "carol") == [])
        #expect(fixture.log.contains { $0.contains("agent command refused") && $0.contains("user=alice") && $0.contains("channel=user:alice") })
        try await fixture.say("/echo hello?")
        #expect(try fixture.botTexts() == ["You are number 1 in the queue; an agent will be with you soon."], "the conversation stays with the agents")
        await fixture.shutdown()
    }

    @Test func aPausedCustomersLineNamingNoTicketGoesToTheAgents() async throws {
        let fixture = try await Self.handedOff()
        try await fixture.say("/take a look at this")
        #expect(try fixture.botTexts(in: Self.agents, seenBy: "carol") == ["#1 Alice: /take a look at this"])
        #expect(!fixture.log.contains { $0.contains("agent command refused") })
        await fixture.shutdown()
    }

    @Test func theHubRefusesANonMembersPostIntoTheQueueGroupAndTheBotDoesNothing() async throws {
        let store = MemoryBotStore()
        let fixture = try await Self.handedOff(store: store)
        let bob = try fixture.hub.connect(user: "bob")
        let denied = await #expect(throws: ParleyError.self) {
            try await bob.send(OutgoingEnvelope(channel: Self.agents, payload: ["type": 1, "text": "/take 1"]))
        }
        #expect(denied?.code == .permissionDenied)
        try await fixture.idle()
        #expect(try fixture.botTexts(in: Self.agents, seenBy: "carol") == [])
        #expect(try fixture.botTexts() == [])
        #expect(try store.tickets(queue: "agents", number: 1) == [Self.openTicket])
        await fixture.shutdown()
    }

    @Test func aCommandSentBeforeTheAgentWasRemovedIsRefused() async throws {
        let store = MemoryBotStore()
        let fixture = try await Self.handedOff(store: store)
        _ = try fixture.newMessages(in: Self.agents, seenBy: "support")
        try await fixture.runningHost.stop()
        // The bot sees the command only when it is back, by which time Carol has left.
        _ = try await fixture.client("carol").send(TextContent("/take 1"), to: Self.agents)
        try fixture.hub.removeMember("carol", from: "agents")
        try await fixture.start(store: store)
        try await fixture.idle()
        #expect(try store.tickets(queue: "agents", number: 1) == [Self.openTicket])
        #expect(try fixture.botTexts(in: Self.agents, seenBy: "support") == [])
        #expect(fixture.log.contains {
            $0.contains("agent command refused") && $0.contains("user=carol") && $0.contains("channel=group:agents")
                && $0.contains("not a member")
        })
        await fixture.shutdown()
    }

    @Test func whenMembershipCannotBeAskedTheCommandIsRefused() async throws {
        let store = MemoryBotStore()
        let fixture = try await Self.handedOff(store: store) { $0.transport = MembersUnknownTransport(base: $0.transport) }
        try await fixture.say("/take 1", as: "carol", in: Self.agents)
        #expect(try store.tickets(queue: "agents", number: 1) == [Self.openTicket])
        #expect(try fixture.botTexts(in: Self.agents, seenBy: "carol") == [])
        #expect(fixture.log.contains { $0.contains("agent command refused") && $0.contains("membership unknown") })
        await fixture.shutdown()
    }

    @Test func theBotsOwnCommandOfTheSameNameAnswersOutsideTheQueue() async throws {
        let yaml = """
            id: support
            name: Support
            commands:
              take:
                args: [what]
                reply: "Take {{args.what}} with you."
              human:
                handoff: { queue: agents, note: "Help" }
            """
        let fixture = try await Self.handedOff(yaml: yaml)
        try await fixture.say("/take 1", as: "bob")
        #expect(try fixture.botTexts(seenBy: "bob") == ["Take 1 with you."])
        try await fixture.say("/take 1", as: "carol", in: Self.agents)
        #expect(try fixture.botTexts(in: Self.agents, seenBy: "carol") == ["Ticket #1 taken by Carol."])
        await fixture.shutdown()
    }
}

/// The hub's transport, except that group membership cannot be asked (a homeserver that
/// does not answer).
struct MembersUnknownTransport: ForwardingTransport {
    let base: any Transport

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { try await base.send(message) }

    nonisolated(nonsending) func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await base.sendBatch(messages)
    }

    func members(of channel: Channel) async throws -> [String] {
        throw ParleyError(.networkUnavailable, "members not available")
    }
}
