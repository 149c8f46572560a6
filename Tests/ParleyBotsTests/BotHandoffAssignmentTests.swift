import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Testing

/// Automatic assignment when many conversations hand off at once: each gets the next agent in
/// turn (the turn is read and stored without a suspension between, on the bot's actor).
@Suite struct BotHandoffAssignmentTests {
    /// A bot whose `/human` hands off to `agents`, worked by `agents` under `assign`; `users`
    /// exist besides the fixture's people, Dave and Erin.
    static func fixture(agents: [String], assign: String, users: [Profile] = []) throws -> BotFixture {
        let yaml = """
            id: support
            commands:
              human: { handoff: { queue: agents, note: "help" } }
            handoff:
              queues:
                agents: { agents: [\(agents.joined(separator: ", "))], assign: \(assign) }
            """
        let fixture = try BotFixture(yaml: yaml, users: BotFixture.people + users
                                        + [Profile(id: "dave", name: "Dave"), Profile(id: "erin", name: "Erin")])
        try fixture.hub.createGroup("agents", members: ["support"] + agents)
        return fixture
    }

    @Test func manyHandOffsAtOnceAreSharedOutEvenly() async throws {
        let customers = (0..<30).map { Profile(id: "customer\($0)", name: "Customer \($0)") }
        let fixture = try Self.fixture(agents: ["carol", "dave", "erin"], assign: "round_robin", users: customers)
        // Profiles looked up anew each time, after a yield: every await in a hand-off really
        // suspends, as with a remote profile service.
        try await fixture.start { connection in
            connection.profileProvider = YieldingProfiles(hub: fixture.hub)
            connection.profileExpiry = .zero
        }
        // All sent before the bot handles any: their hand-offs run side by side.
        var clients: [ChatClient] = []
        for customer in customers { clients.append(try await fixture.client(customer.id)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in clients { group.addTask { _ = try await client.send(TextContent("/human"), to: .person("support")) } }
            try await group.waitForAll()
        }
        try await fixture.idle()
        let assigned = try fixture.botTexts(in: .group("agents"), seenBy: "carol").filter { $0.contains(" assigned to ") }
        #expect(assigned.count == 30)
        var perAgent: [String: Int] = [:]
        for line in assigned { perAgent[String(line.split(separator: " ").last ?? ""), default: 0] += 1 }
        #expect(perAgent == ["Carol.": 10, "Dave.": 10, "Erin.": 10], "\(assigned)")
        await fixture.shutdown()
    }

    @Test func leastBusyGivesTheTicketToWhoHoldsFewest() async throws {
        let fixture = try Self.fixture(agents: ["carol", "dave"], assign: "least_busy")
        try await fixture.start()
        func assigned() throws -> String? {
            try fixture.botTexts(in: .group("agents"), seenBy: "carol").last { $0.contains(" assigned to ") }
        }
        try await fixture.say("/human")
        #expect(try assigned() == "Ticket #1 assigned to Carol.")
        try await fixture.say("/human", as: "bob")
        #expect(try assigned() == "Ticket #2 assigned to Dave.")
        try await fixture.say("/resolve 2", as: "dave", in: .group("agents"))
        // Carol holds one, Dave none now.
        try await fixture.say("/human", as: "erin")
        #expect(try assigned() == "Ticket #3 assigned to Dave.")
        await fixture.shutdown()
    }
}

/// The hub's profiles, each lookup after a few yields.
struct YieldingProfiles: ProfileProvider {
    let hub: Hub

    func fetchProfiles(_ ids: [String]) async throws -> [Profile] {
        for _ in 0..<3 { await Task.yield() }
        return ids.compactMap { hub.user($0) }
    }
}
