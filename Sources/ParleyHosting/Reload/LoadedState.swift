import Foundation
import ParleyBots
import ParleyCore
import Synchronization
import YAMLCoding

/// What a running host was loaded from: its bots and the files they came from, which a
/// reload compares with what it loads.
struct LoadedState: Sendable {
    /// The bots that compiled, in file order; `run` sets them with what follows from them.
    private(set) var bots: [CompiledBot]
    /// Each bot file's text by bot id: a bot whose text is the same is unchanged.
    var sources: [String: String]
    /// The config file's top-level sections (without positions), by key.
    var config: [String: Node]
    /// Decodes every card of every bot.
    private(set) var registry: ContentRegistry
    /// The hand-off queues of the bots, sorted.
    private(set) var queues: [String]

    /// The state of `loaded`, running `bots` (those of its bots that compiled).
    init(_ loaded: LoadedHost, bots: [CompiledBot]) {
        self.bots = bots
        sources = Self.sources(of: loaded)
        config = Self.sections(of: loaded)
        registry = BotContentRegistry.make(cards: bots.flatMap { Array($0.cards.values) })
        queues = Self.queues(of: bots)
    }

    /// Runs `bots` from now on: the registry and queues follow them.
    mutating func run(_ bots: [CompiledBot]) {
        self.bots = bots
        registry = BotContentRegistry.make(cards: bots.flatMap { Array($0.cards.values) })
        queues = Self.queues(of: bots)
    }

    /// Each bot file's text of `loaded`, by bot id.
    static func sources(of loaded: LoadedHost) -> [String: String] {
        Dictionary(loaded.catalog.bots.map { ($0.id, $0.source.text) }, uniquingKeysWith: { first, _ in first })
    }

    /// The hand-off queues of `bots`, sorted.
    static func queues(of bots: [CompiledBot]) -> [String] { Set(bots.flatMap(\.queues)).sorted() }

    /// The config's top-level keys and their values with positions left out, so moving a
    /// section in the file is no change.
    static func sections(of loaded: LoadedHost) -> [String: Node] {
        guard let source = loaded.catalog.configSource,
              let root = try? parseYAML(source.text, file: source.name), let mapping = root.mapping else { return [:] }
        var sections: [String: Node] = [:]
        for pair in mapping.pairs {
            guard let key = pair.key.scalar?.value else { continue }
            sections[key] = pair.value.withoutMarks
        }
        return sections
    }
}

/// The transport sessions of a host: the first run's, and one per reload that added bots.
final class HostSessions: Sendable {
    private let sessions = Mutex<[TransportSession]>([])

    func add(_ session: TransportSession) { sessions.withLock { $0.append(session) } }

    var all: [TransportSession] { sessions.withLock { $0 } }

    /// Every session's sync loops, by bot.
    var syncWatches: [String: SyncWatch] {
        all.reduce(into: [:]) { watches, session in watches.merge(session.syncWatches) { _, new in new } }
    }

    /// Prunes every session's own records (`storage.retention`).
    func prune(before cutoff: Date) async throws -> Int {
        var deleted = 0
        for session in all { if let prune = session.prune { deleted += try await prune(cutoff) } }
        return deleted
    }
}

/// Runs reloads one after another: a reload asked for while one runs starts when it ends.
actor ReloadQueue {
    private var last: Task<ReloadReport, Never>?

    func run(_ reload: @escaping @Sendable () async -> ReloadReport) async -> ReloadReport {
        let previous = last
        let task = Task {
            _ = await previous?.value
            return await reload()
        }
        last = task
        return await task.value
    }
}
