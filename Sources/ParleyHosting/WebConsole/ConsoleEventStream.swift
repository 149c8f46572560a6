import Foundation
import ParleyBots
import ParleyCore
import ParleyHTTPServer

/// One agent's event stream: `event: tickets` (the open and taken tickets of the agent's
/// queues, each with its last messages) and `event: broadcasts` (the running and paused jobs),
/// each sent at once and then again whenever it changed.
///
/// It wakes on the host's change signal (what the bots do), at most once per `coalescing` (a
/// burst of messages is one reading, not one per message), and every `safetyNet` anyway (what
/// no bot activity announces: a broadcast's progress, a timer's move, a store written by
/// another path). A reading sends only what differs from what this stream sent last, so a
/// quiet host costs a look at the store every two seconds (the conversations come from the
/// `ConversationCache` while nothing changed) and no bytes but the keep-alive.
struct ConsoleEventStream: Sendable {
    static let coalescing: Duration = .milliseconds(100)
    static let safetyNet: Duration = .seconds(2)
    /// A comment line this often: a proxy keeps the quiet connection, the server notices a
    /// closed tab at the next write.
    static let keepAlive: Duration = .seconds(15)
    /// The tickets listed per queue at most: a console shows a queue's work, not its archive.
    static let ticketsPerQueue = 200

    let running: RunningHost
    let sessions: ConsoleSessions
    let conversations: ConversationCache
    let caller: ConsoleCaller
    let stream: HTTPServerStream

    /// Writes until the stream ends or the task is cancelled; ends the stream itself when the
    /// caller's session ends (signed out, expired).
    func run() async {
        let clock = ContinuousClock()
        var sent: [String: String] = [:]
        var lastKeepAlive = clock.now
        while !Task.isCancelled, !stream.isClosed {
            if let secret = caller.session, !sessions.isLive(secret) {
                stream.finish()
                return
            }
            let seen = running.changes.generation
            let read = clock.now
            for (event, data) in await reading(seen) where sent[event] != data {
                guard stream.send(ServerSentEvent(event: event, data: data)) else { return }
                sent[event] = data
            }
            await running.changes.wait(after: seen, timeout: Self.safetyNet)
            if clock.now - lastKeepAlive >= Self.keepAlive {
                guard stream.keepAlive() else { return }
                lastKeepAlive = clock.now
            }
            try? await clock.sleep(until: read + Self.coalescing)
        }
    }

    /// Each event's data as it stands now, the host's changes counted `seen` before; an event
    /// whose reading failed is left out (sent at the next reading that works, rather than as
    /// an empty list that is not true).
    func reading(_ seen: UInt64) async -> [(event: String, data: String)] {
        var events: [(event: String, data: String)] = []
        if let tickets = await tickets(seen) { events.append(("tickets", tickets.jsonString())) }
        if let broadcasts = broadcasts() { events.append(("broadcasts", broadcasts.jsonString())) }
        return events
    }

    /// `{"tickets": […]}`: the open and taken tickets of the agent's queues, newest first,
    /// read from the store each time; their conversations through `conversations`.
    func tickets(_ seen: UInt64) async -> JSONValue? {
        var found: [Ticket] = []
        do {
            for queue in caller.agent.queues {
                found += try running.host.store.listTickets(queue: queue, statuses: [.open, .taken], limit: Self.ticketsPerQueue)
            }
        } catch {
            return nil
        }
        found.sort { ($0.openedAt ?? .distantPast, $0.number, $0.queue) > ($1.openedAt ?? .distantPast, $1.number, $1.queue) }
        var items: [JSONValue] = []
        for ticket in found {
            // A conversation that cannot be read now (a bot reconnecting) skips this reading:
            // the list would otherwise flicker empty and back.
            guard let messages = await conversations.messages(of: ticket, limit: ConsoleTicketJSON.listMessages, generation: seen,
                                                              host: running.host) else { return nil }
            items.append(ConsoleTicketJSON.json(ticket, messages: messages))
        }
        return .object(["tickets": .array(items)])
    }

    /// `{"broadcasts": […]}`: the jobs running or paused, as the admin API shows them.
    func broadcasts() -> JSONValue? {
        guard let store = running.host.options.broadcasts?.store else { return .object(["broadcasts": []]) }
        guard let jobs = try? store.jobs() else { return nil }
        return .object(["broadcasts": .array(jobs.filter { $0.state == .running || $0.state == .paused }.map(AdminAPI.json))])
    }
}
