import Foundation
import ParleyBots
import ParleyCore
import Synchronization

/// The accounts through which this process helps send broadcasts of bots other processes
/// run (see `BotHost.helpBroadcasts`): each bot's, opened at its first job and kept. A bot
/// whose account cannot be opened is logged once and left to its holder.
final class BroadcastHelpers: Sendable {
    private let senders: any BroadcastSenders
    private let opened = Mutex<[String: any Transport]>([:])
    private let refused = Mutex<Set<String>>([])
    private let log: @Sendable (String, String) -> Void

    /// Nil when the transport cannot help from outside a bot's holder.
    init?(provider: any TransportProvider, storage: HostStorage, log: @escaping @Sendable (_ bot: String, _ problem: String) -> Void) {
        guard let senders = try? provider.broadcastHelpers(storage: storage) else { return nil }
        self.senders = senders
        self.log = log
    }

    /// The route through bot `bot`'s helper account, nil if it cannot be opened.
    func route(for bot: String) -> BroadcastRoute? {
        if let transport = opened.withLock({ $0[bot] }) { return .transport(transport) }
        guard !refused.withLock({ $0.contains(bot) }) else { return nil }
        do {
            let transport = try senders.transport(for: bot)
            // One per bot, should two rounds have opened it at once.
            return .transport(opened.withLock { opened in
                if let first = opened[bot] { return first }
                opened[bot] = transport
                return transport
            })
        } catch {
            refused.withLock { _ = $0.insert(bot) }
            log(bot, "\(error)")
            return nil
        }
    }

    /// Releases the accounts (at stop).
    func close() async { await senders.close() }
}
