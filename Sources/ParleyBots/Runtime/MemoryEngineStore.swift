import Foundation
import Synchronization

/// An `EngineStore` in memory (`storage: ":memory:"`, benchmarks, tests of one run).
public final class MemoryEngineStore: EngineStore {
    private struct Key: Hashable {
        var bot: String
        var item: String
    }

    private struct Contents {
        var states: [Key: ConversationState] = [:]
        var greeted: Set<Key> = []
        var tickets: [Key: Ticket] = [:]
        var ticketCounts: [String: Int] = [:]
        /// The unresolved ticket of each conversation (bot, channel) that has one.
        var unresolved: [Key: Int] = [:]
        /// Each bot's unhandled messages by id, with their place in the order received.
        var inbox: [Key: (position: Int, message: ReceivedMessage)] = [:]
        var received = 0
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

    public func receive(_ messages: [ReceivedMessage], bot: String) throws {
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

    public func markGreeted(bot: String, key: String) throws -> Bool {
        contents.withLock { $0.greeted.insert(Key(bot: bot, item: key)).inserted }
    }

    public func open(_ ticket: Ticket) throws -> Ticket {
        contents.withLock { contents in
            let conversation = Key(bot: ticket.bot, item: ticket.channel)
            if let number = contents.unresolved[conversation], let open = contents.tickets[Key(bot: ticket.bot, item: String(number))] {
                return open
            }
            var ticket = ticket
            let number = contents.ticketCounts[ticket.bot, default: 0] + 1
            contents.ticketCounts[ticket.bot] = number
            ticket.number = number
            contents.tickets[Key(bot: ticket.bot, item: String(number))] = ticket
            if ticket.status != .resolved { contents.unresolved[conversation] = number }
            return ticket
        }
    }

    public func ticket(bot: String, number: Int) throws -> Ticket? {
        contents.withLock { $0.tickets[Key(bot: bot, item: String(number))] }
    }

    public func update(_ ticket: Ticket) throws {
        contents.withLock { contents in
            contents.tickets[Key(bot: ticket.bot, item: String(ticket.number))] = ticket
            let conversation = Key(bot: ticket.bot, item: ticket.channel)
            if ticket.status == .resolved, contents.unresolved[conversation] == ticket.number {
                contents.unresolved[conversation] = nil
            }
        }
    }
}
