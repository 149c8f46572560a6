import Foundation
import ParleyBots
import ParleyCore
import Synchronization
import Testing

/// A resolution whose conversation has nothing queued or under way gives the conversation back
/// in the ticket's own write: one write, and no crash between two can leave the conversation
/// paused on a resolved ticket.
@Suite struct BotHandoffResolveWriteTests {
    @Test func anIdleConversationIsFreedInTheTicketsWrite() async throws {
        let fixture = try BotFixture()
        try await fixture.createAgents()
        let store = RecordingBotStore()
        try await fixture.start(store: store)
        let agents = Channel.group("agents")
        try await fixture.say("/refund")
        try await fixture.say("123456")
        try await fixture.say("/take 1", as: "carol", in: agents)
        _ = store.takeWrites()
        try await fixture.say("/resolve 1", as: "carol", in: agents)
        #expect(store.takeWrites() == ["ticket #1 with the state of user:alice"])
        #expect(try store.state(bot: "support", channel: "user:alice")?.ticket == nil)
        try await fixture.say("/echo back again")
        #expect(try fixture.botTexts().last == "back again")
        await fixture.shutdown()
    }
}

/// A memory store that notes its writes of tickets and conversation states.
final class RecordingBotStore: BotStore {
    private let inner = MemoryBotStore()
    private let writes = Mutex<[String]>([])

    /// The writes noted since the last call.
    func takeWrites() -> [String] { writes.withLock { writes in defer { writes = [] }; return writes } }

    private func note(_ write: String) { writes.withLock { $0.append(write) } }

    func state(bot: String, channel: String) throws -> ConversationState? { try inner.state(bot: bot, channel: channel) }
    func save(_ state: ConversationState?, bot: String, channel: String, handled: String?) throws {
        note("state of \(channel)")
        try inner.save(state, bot: bot, channel: channel, handled: handled)
    }
    func receive(_ messages: [ReceivedMessage], bot: String) async throws { try await inner.receive(messages, bot: bot) }
    func handled(_ messageID: String, bot: String) throws { try inner.handled(messageID, bot: bot) }
    func unhandled(bot: String) throws -> [ReceivedMessage] { try inner.unhandled(bot: bot) }
    var isPersistent: Bool { inner.isPersistent }
    func statesWithTimers(bot: String) throws -> [(channel: String, state: ConversationState)] { try inner.statesWithTimers(bot: bot) }
    func markGreeted(bot: String, key: String, at now: Date, message: String?) throws -> Bool {
        try inner.markGreeted(bot: bot, key: key, at: now, message: message)
    }
    func open(_ ticket: Ticket) throws -> Ticket { try inner.open(ticket) }
    func tickets(queue: String, number: Int) throws -> [Ticket] { try inner.tickets(queue: queue, number: number) }
    func ticket(bot: String, channel: String, number: Int) throws -> Ticket? { try inner.ticket(bot: bot, channel: channel, number: number) }
    func update(_ ticket: Ticket) throws {
        note("ticket #\(ticket.number)")
        try inner.update(ticket)
    }
    func update(_ ticket: Ticket, state: ConversationState?) async throws {
        note("ticket #\(ticket.number) with the state of \(ticket.channel)")
        try await inner.update(ticket, state: state)
    }
    func prune(before cutoff: Date) throws -> Int { try inner.prune(before: cutoff) }
    func summary() throws -> BotStoreSummary { try inner.summary() }
    func listTickets(queue: String?, statuses: Set<Ticket.Status>, limit: Int) throws -> [Ticket] {
        try inner.listTickets(queue: queue, statuses: statuses, limit: limit)
    }
    func transfer(_ ticket: Ticket, to queue: String, note: String, at now: Date) throws -> Ticket {
        try inner.transfer(ticket, to: queue, note: note, at: now)
    }
    func waitingAhead(of number: Int, queue: String) throws -> Int { try inner.waitingAhead(of: number, queue: queue) }
    func takenCounts(queue: String) throws -> [String: Int] { try inner.takenCounts(queue: queue) }
    func setAway(_ agent: String, _ away: Bool) throws { try inner.setAway(agent, away) }
    func awayAgents() throws -> Set<String> { try inner.awayAgents() }
    func lastAssigned(queue: String) throws -> String? { try inner.lastAssigned(queue: queue) }
    func setLastAssigned(queue: String, agent: String) throws { try inner.setLastAssigned(queue: queue, agent: agent) }
}
