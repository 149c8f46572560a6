import ParleyBots
import Synchronization

/// The ticket conversations the console's event streams show, read once per change of the host
/// and shared by every stream: a quiet host's safety-net readings, and several agents' streams
/// woken by one change, read no conversation twice.
///
/// Keyed by the change signal's generation as the reader saw it before reading: every message
/// of a conversation the bot sends or takes is signalled (`SignallingActivityObserver`), and
/// only once the server or the transport's record can answer for it (the hub stores a message
/// before it delivers it; Matrix commits a sync's events before it pushes them, a send when
/// it is accepted). So an entry read at the generation a reader sees is still what the
/// conversation holds; an entry of an older generation is never used again, and goes.
final class ConversationCache: Sendable {
    private struct Key: Hashable {
        let bot: String, queue: String, number: Int, limit: Int
    }

    private struct State {
        var generation: UInt64 = 0
        var entries: [Key: [TicketMessage]] = [:]
    }

    private let state = Mutex(State())

    /// The last `limit` messages of `ticket`'s conversation for a reader that saw `generation`:
    /// from the cache when read at that generation, else through `host` (and kept, unless a
    /// newer generation's entries are there already). Nil when they cannot be read now.
    func messages(of ticket: Ticket, limit: Int, generation: UInt64, host: BotHost) async -> [TicketMessage]? {
        let key = Key(bot: ticket.bot, queue: ticket.queue, number: ticket.number, limit: limit)
        if let kept = state.withLock({ $0.generation == generation ? $0.entries[key] : nil }) { return kept }
        guard let messages = await host.conversation(of: ticket, limit: limit) else { return nil }
        state.withLock { state in
            if generation > state.generation {
                state.generation = generation
                state.entries = [:]
            }
            if generation == state.generation { state.entries[key] = messages }
        }
        return messages
    }
}
