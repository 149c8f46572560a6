import Foundation
import ParleyBots
import ParleyCore
import ParleyHub

/// The bots of a catalog running on the embedded hub: what `parley run` (kind `local`) and
/// `parley chat` start. A bot that does not compile is logged and left out.
final class EmbeddedHost: Sendable {
    let hub: Hub
    let host: BotHost
    /// The bots that compiled, in file-name order.
    let bots: [CompiledBot]
    /// Decodes every card of every bot (for the console).
    let registry: ContentRegistry
    /// The hand-off queues of the bots: `group:<queue>` exists with those bots and the
    /// extra users as members, so tickets have somewhere to go.
    let queues: [String]

    /// Builds the hub, the state store and the host. `storagePath` `":memory:"` keeps
    /// nothing; a file path keeps bot state there and the hub and clients next to it.
    /// `wrapTransport` may wrap each bot's transport (`parley chat --record` records through it).
    init(catalog: HostCatalog, storagePath: String, logger: EngineLogger, extraUsers: [String] = [],
         clock: any ParleyClock = SystemClock(), wrapTransport: ((_ botID: String, _ transport: any Transport) -> any Transport)? = nil) throws {
        let inMemory = storagePath == ":memory:"
        hub = try Hub(path: inMemory ? ":memory:" : Self.sibling(of: storagePath, "hub"), clock: clock)
        var profiles: [Profile] = []
        for entry in catalog.profiles?.entries ?? [] {
            let value = entry.value
            profiles.append(Profile(id: entry.name, name: value.name, avatar: value.avatar, phone: value.phone,
                                    email: value.email, org: value.org, title: value.title))
        }
        for profile in profiles { try hub.addUser(profile) }
        var compiled: [CompiledBot] = []
        for loaded in catalog.bots {
            do {
                compiled.append(try CompiledBot(id: loaded.id, definition: loaded.definition, file: loaded.file))
            } catch {
                logger.log(.error, at: clock.now(), bot: loaded.id, "bot not started", ["error": error.message])
            }
        }
        bots = compiled
        for user in extraUsers where hub.user(user) == nil { try hub.addUser(Profile(id: user, name: user)) }
        for bot in compiled { try hub.addUser(Profile(id: bot.id, name: bot.name, avatar: bot.avatar)) }
        queues = Set(compiled.flatMap(\.queues)).sorted()
        for queue in queues {
            let members = compiled.filter { $0.queues.contains(queue) }.map(\.id) + extraUsers
            // A stored hub may know the group from an earlier run.
            do { try hub.createGroup(queue, name: queue, members: members) } catch let error as ParleyError where error.code == .conflict {
                for member in members { try hub.addMember(member, to: queue) }
            }
        }
        let store: any EngineStore = inMemory ? MemoryEngineStore() : try SQLiteEngineStore(path: storagePath)
        host = BotHost(store: store, clock: clock, logger: logger,
                       options: try BroadcastsCommand.hostOptions(config: catalog.config, storagePath: storagePath, clock: clock, logger: logger))
        registry = EngineRegistry.make(cards: compiled.flatMap { Array($0.cards.values) })
        var provider: (any ProfileProvider)?
        if let url = catalog.config?.profiles?.url?.value {
            provider = try HTTPProfileProvider(urlTemplate: url)
        } else if !profiles.isEmpty {
            provider = StaticProfileProvider(profiles)
        }
        for bot in compiled {
            let transport = try hub.connect(user: bot.id)
            let storage: ChatStorage = inMemory ? .memory : .sqlite(path: Self.sibling(of: storagePath, bot.id))
            try host.add(bot, connection: BotConnection(transport: wrapTransport?(bot.id, transport) ?? transport,
                                                       deliveredEventCount: { transport.deliveredEventCount },
                                                       storage: storage, profileProvider: provider))
        }
    }

    /// `.parley/parley.db` → `.parley/parley.NAME.db`.
    static func sibling(of path: String, _ name: String) -> String {
        let base = path.hasSuffix(".db") ? String(path.dropLast(3)) : path
        return "\(base).\(name).db"
    }

    /// The logger a config asks for, writing to standard error.
    static func logger(for config: HostConfig?, output: any OutputSink) -> EngineLogger {
        let level = config?.log?.level.flatMap { LogLevel(name: $0.value) } ?? .info
        let format: EngineLogger.Format = config?.log?.format?.value == "json" ? .json : .text
        return EngineLogger(level: level, format: format, sink: { line in output.write(line + "\n", to: .standardError) })
    }

    /// Stops the bots, then the hub (writing its cursors).
    func shutdown() async {
        await host.stop()
        try? hub.close()
    }
}
