import Foundation
import ParleyBots
import ParleyCore
import Testing
import ParleyTesting

/// `handoff.queues` across restarts on SQLite: a ticket's reminder and escalation fire once
/// each, at their time, whenever the host was down; the round-robin turn and an agent's
/// `away` are kept; a transfer is one write.
@Suite struct BotHandoffStaffingRestartTests {
    static let yaml = """
        id: support
        commands:
          human: { handoff: { queue: agents, note: "help" } }
          boss: { handoff: { queue: supervisors, note: "for a supervisor" } }
        handoff:
          queues:
            agents:
              agents: [carol, dave]
              assign: round_robin
              remind_after: 5m
              escalate_after: 15m
              escalate_to: supervisors
        """

    private static func fixture() throws -> BotFixture {
        let fixture = try BotFixture(yaml: yaml, users: BotFixture.people + [Profile(id: "dave", name: "Dave")])
        try fixture.hub.createGroup("agents", members: ["support", "carol", "dave"])
        try fixture.hub.createGroup("supervisors", members: ["support", "carol"])
        return fixture
    }

    @Test(arguments: TestDatabase.kinds) func remindersAndEscalationsFireOnceEachAcrossRestarts(database: TestDatabase) async throws {
        let path = database.location("engine-staffing")
        let fixture = try Self.fixture()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("/away", as: "carol", in: .group("agents"))
        try await fixture.say("/away", as: "dave", in: .group("agents"))
        _ = try fixture.botTexts(in: .group("agents"), seenBy: "carol")
        // Bob's ticket is #1 of the supervisors: alice's, escalated there, will be #2.
        try await fixture.say("/boss", as: "bob")
        _ = try fixture.botTexts(in: .group("supervisors"), seenBy: "carol")
        try await fixture.say("/human")
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol").count == 1, "the card, and no agent to assign")
        try await fixture.advance(.seconds(180))
        try await fixture.runningHost.stop()

        // Down past the reminder's time: the next start announces it at once, and only once.
        await fixture.clock.advance(by: .seconds(180))
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.idle()
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol") == ["Reminder: ticket #1 from alice has waited 6m for an agent."])
        try await fixture.runningHost.stop()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.advance(.seconds(60))
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol") == [])

        // The escalation at 15 minutes, once, across one more restart.
        try await fixture.advance(.seconds(8 * 60))
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol") == ["Ticket #1 escalated to supervisors as #2 after 15m untaken."])
        #expect(try fixture.botTexts(in: .group("supervisors"), seenBy: "carol").count == 1)
        try await fixture.runningHost.stop()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.advance(.seconds(3600))
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol") == [])
        #expect(try fixture.botTexts(in: .group("supervisors"), seenBy: "carol") == [])
        let store = try DatabaseBotStore(path: path)
        #expect(try store.tickets(queue: "agents", number: 1).first?.movedTo == "supervisors#2")
        #expect(try store.tickets(queue: "agents", number: 1).first?.status == .resolved)
        #expect(try store.tickets(queue: "supervisors", number: 2).first?.movedFrom == "agents#1")
        #expect(try store.tickets(queue: "supervisors", number: 2).first?.status == .open)
        // It keeps the customer's card, and the escalation's note replaces the hand-off's.
        #expect(try store.tickets(queue: "agents", number: 1).first?.note == "help")
        #expect(try store.tickets(queue: "supervisors", number: 2).first?.note == "Escalated from agents #1: untaken for 15m.")
        #expect(try store.tickets(queue: "supervisors", number: 2).first?.customer == VCardContent(user: "alice", name: "Alice"))
        // The customer's conversation follows its ticket: what alice writes reaches the supervisors.
        try await fixture.say("still waiting")
        #expect(try fixture.botTexts(in: .group("supervisors"), seenBy: "carol") == ["#2 Alice: still waiting"])
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func theTurnAndWhoIsAwayAreKeptAcrossRestarts(database: TestDatabase) async throws {
        let path = database.location("engine-staffing")
        let fixture = try Self.fixture()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("/human")
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol").last == "Ticket #1 assigned to Carol.")
        try await fixture.runningHost.stop()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("/human", as: "bob")
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol").last == "Ticket #2 assigned to Dave.")
        try await fixture.say("/away", as: "carol", in: .group("agents"))
        try await fixture.runningHost.stop()
        try await fixture.start(store: DatabaseBotStore(path: path))
        // Carol's turn, but she is away.
        try fixture.hub.addUser(Profile(id: "erin", name: "Erin"))
        try await fixture.say("/human", as: "erin")
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol").last == "Ticket #3 assigned to Dave.")
        await fixture.shutdown()
    }
}
