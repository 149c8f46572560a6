import Foundation
import Synchronization

/// An `BotStore` in memory (`storage: ":memory:"`, benchmarks, tests of one run).
public final class MemoryBotStore: BotStore {
    private struct Key: Hashable {
        var bot: String
        var item: String
    }

    /// A ticket's identity: numbers are unique per queue (nothing here predates that).
    private struct TicketKey: Hashable {
        var queue: String
        var number: Int
    }

    private struct Contents {
        var states: [Key: ConversationState] = [:]
        /// When each greeted user was last heard of, and the message their greeting answered.
        var greeted: [Key: Greeting] = [:]
        var tickets: [TicketKey: Ticket] = [:]
        /// Each conversation's (bot, channel) tickets, oldest first.
        var conversations: [Key: [TicketKey]] = [:]
        /// The last number drawn in each queue.
        var queueNumbers: [String: Int] = [:]
        /// The unresolved ticket of each conversation (bot, channel) that has one.
        var unresolved: [Key: TicketKey] = [:]
        /// Each bot's unhandled messages by id, with their place in the order received.
        var inbox: [Key: (position: Int, message: ReceivedMessage)] = [:]
        var received = 0
        var away: Set<String> = []
        var lastAssigned: [String: String] = [:]
    }

    private let contents = Mutex(Contents())

    /// An empty store.
    public init() {}

    public var isPersistent: Bool { false }

    public func state(bot: String, channel: String) throws -> ConversationState? {
        contents.withLock { $0.states[Key(bot: bot, item: channel)] }
    }

    public func save(_ state: ConversationState?, bot: String, channel: String, handled: String?) throws {
        contents.withLock { contents in
            contents.states[Key(bot: bot, item: channel)] = state
            if let handled { contents.inbox[Key(bot: bot, item: handled)] = nil }
        }
    }

    public func receive(_ messages: [ReceivedMessage], bot: String) async throws {
        contents.withLock { contents in
            for message in messages where contents.inbox[Key(bot: bot, item: message.id)] == nil {
                contents.received += 1
                contents.inbox[Key(bot: bot, item: message.id)] = (contents.received, message)
            }
        }
    }

    public func handled(_ messageID: String, bot: String) throws {
        _ = contents.withLock { $0.inbox.removeValue(forKey: Key(bot: bot, item: messageID)) }
    }

    public func unhandled(bot: String) throws -> [ReceivedMessage] {
        contents.withLock { contents in
            contents.inbox.filter { $0.key.bot == bot }.values.sorted { $0.position < $1.position }.map(\.message)
        }
    }

    public func statesWithTimers(bot: String) throws -> [(channel: String, state: ConversationState)] {
        contents.withLock { contents in
            contents.states.filter { $0.key.bot == bot && $0.value.nextTimer != nil }
                .map { (channel: $0.key.item, state: $0.value) }
                .sorted { $0.channel < $1.channel }
        }
    }

    public func markGreeted(bot: String, key: String, at now: Date, message: String?) throws -> Bool {
        contents.withLock { contents in
            let key = Key(bot: bot, item: key)
            guard let old = contents.greeted[key] else {
                contents.greeted[key] = Greeting(seen: now, message: message)
                return true
            }
            contents.greeted[key]?.seen = now
            return message != nil && old.message == message
        }
    }

    /// A greeted user or group: when last heard of, and the message the greeting answered.
    private struct Greeting {
        var seen: Date
        let message: String?
    }

    public func prune(before cutoff: Date) throws -> Int {
        contents.withLock { contents in
            let greetings = contents.greeted.count
            contents.greeted = contents.greeted.filter { $0.value.seen >= cutoff }
            let old = contents.tickets.filter { $0.value.status == .resolved && ($0.value.resolvedAt ?? .distantFuture) < cutoff }
            for (key, ticket) in old {
                contents.tickets.removeValue(forKey: key)
                contents.conversations[Key(bot: ticket.bot, item: ticket.channel)]?.removeAll { $0 == key }
            }
            return greetings - contents.greeted.count + old.count
        }
    }

    public func summary() throws -> BotStoreSummary {
        contents.withLock { contents in
            var summary = BotStoreSummary()
            for ticket in contents.tickets.values {
                summary.tickets[.init(queue: ticket.queue, status: ticket.status), default: 0] += 1
                if ticket.status == .open, let opened = ticket.openedAt {
                    summary.oldestOpen[ticket.queue] = min(summary.oldestOpen[ticket.queue] ?? opened, opened)
                }
            }
            for (key, state) in contents.states where state.waiting != nil { summary.activeFlows[key.bot, default: 0] += 1 }
            return summary
        }
    }

    public func listTickets(queue: String?, statuses: Set<Ticket.Status>, limit: Int) throws -> [Ticket] {
        contents.withLock { contents in
            // Newest first: numbers rise within a queue; across queues, by the time opened.
            let matching = contents.tickets.values.filter { (queue == nil || $0.queue == queue) && (statuses.isEmpty || statuses.contains($0.status)) }
            return Array(matching.sorted {
                ($0.openedAt ?? .distantPast, $0.number) > ($1.openedAt ?? .distantPast, $1.number)
            }.prefix(max(0, limit)))
        }
    }

    public func open(_ ticket: Ticket) throws -> Ticket {
        contents.withLock { contents in
            let conversation = Key(bot: ticket.bot, item: ticket.channel)
            if let key = contents.unresolved[conversation], let open = contents.tickets[key] { return open }
            var ticket = ticket
            // Drawn under the lock: bots sharing this store never get the same number.
            ticket.number = contents.queueNumbers[ticket.queue, default: 0] + 1
            contents.queueNumbers[ticket.queue] = ticket.number
            let key = TicketKey(queue: ticket.queue, number: ticket.number)
            contents.tickets[key] = ticket
            contents.conversations[conversation, default: []].append(key)
            if ticket.status != .resolved { contents.unresolved[conversation] = key }
            return ticket
        }
    }

    public func tickets(queue: String, number: Int) throws -> [Ticket] {
        contents.withLock { $0.tickets[TicketKey(queue: queue, number: number)].map { [$0] } ?? [] }
    }

    public func ticket(bot: String, channel: String, number: Int) throws -> Ticket? {
        contents.withLock { contents in
            let keys = contents.conversations[Key(bot: bot, item: channel)] ?? []
            return keys.last { $0.number == number }.flatMap { contents.tickets[$0] }
        }
    }

    public func update(_ ticket: Ticket) throws {
        contents.withLock { contents in
            let key = TicketKey(queue: ticket.queue, number: ticket.number)
            contents.tickets[key] = ticket
            let conversation = Key(bot: ticket.bot, item: ticket.channel)
            if ticket.status == .resolved, contents.unresolved[conversation] == key {
                contents.unresolved[conversation] = nil
            }
        }
    }

    public func transfer(_ ticket: Ticket, to queue: String, note: String, at now: Date) throws -> Ticket {
        contents.withLock { contents in
            let next = ticket.successor(in: queue, number: contents.queueNumbers[queue, default: 0] + 1, note: note, at: now)
            contents.queueNumbers[queue] = next.number
            let old = ticket.closed(movingTo: next, at: now)
            contents.tickets[TicketKey(queue: old.queue, number: old.number)] = old
            let key = TicketKey(queue: queue, number: next.number)
            contents.tickets[key] = next
            let conversation = Key(bot: ticket.bot, item: ticket.channel)
            contents.conversations[conversation, default: []].append(key)
            contents.unresolved[conversation] = key
            return next
        }
    }

    public func setAway(_ agent: String, _ away: Bool) throws {
        contents.withLock { contents in
            if away { contents.away.insert(agent) } else { contents.away.remove(agent) }
        }
    }

    public func awayAgents() throws -> Set<String> { contents.withLock { $0.away } }

    public func lastAssigned(queue: String) throws -> String? { contents.withLock { $0.lastAssigned[queue] } }

    public func setLastAssigned(queue: String, agent: String) throws { contents.withLock { $0.lastAssigned[queue] = agent } }

    public func waitingAhead(of number: Int, queue: String) throws -> Int {
        contents.withLock { $0.tickets.values.count { $0.queue == queue && $0.status == .open && $0.number < number } }
    }

    public func takenCounts(queue: String) throws -> [String: Int] {
        contents.withLock { contents in
            var counts: [String: Int] = [:]
            for ticket in contents.tickets.values where ticket.queue == queue && ticket.status == .taken {
                if let agent = ticket.agent { counts[agent, default: 0] += 1 }
            }
            return counts
        }
    }
}
