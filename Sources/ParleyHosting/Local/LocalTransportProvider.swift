import Foundation
import ParleyBots
import ParleyCore
import ParleyFlowTest
import ParleyHub
import YAMLCoding

/// `transport: {kind: local}` (the default): the embedded hub, in this process, its tables in
/// the host's store (`parley.db`, sharing its writer). Every name a bot uses exists: the config's profiles
/// and the bots are users, each hand-off queue is a group of its bots (and the extra users).
public struct LocalTransportProvider: TransportProvider {
    public static let kind = "local"

    /// The embedded hub as a transport provider.
    public init() {}

    /// The section's keys: only `kind`.
    struct Settings: Decodable {
        var kind: Located<String>?
    }

    public static func load(_ section: TransportConfig, bots: [LoadedBot], source: SourceFile,
                            environment: [String: String]) -> Result<any TransportProvider, YAMLErrors> {
        do {
            _ = try YAMLDecoder(environment: environment).decode(Settings.self, from: section.section, source: source)
            return .success(LocalTransportProvider())
        } catch {
            return .failure(error)
        }
    }

    public func connect(_ run: TransportRun) async throws -> TransportSession {
        let hub = try Hub(path: try Self.hubPath(run.storage, log: { run.logger.log(.info, at: run.clock.now(), bot: nil, $0, [:]) }),
                          clock: run.clock)
        for profile in run.profiles.entries { try hub.addUser(profile) }
        for user in run.extraUsers where hub.user(user) == nil { try hub.addUser(Profile(id: user, name: user)) }
        var session = TransportSession(connections: try Self.connect(run.bots, run: run, on: hub), hub: hub, close: { try? hub.close() })
        // A reload's new bots join the same hub; its changed bots' new queues become groups.
        session.connectMore = { _, run, ids in
            TransportSession(connections: try Self.connect(run.bots.filter { ids.contains($0.id) }, run: run, on: hub))
        }
        return session
    }

    /// Makes `bots` users of `hub` and members of their queues' groups (created as needed;
    /// the groups of every bot of `run` are brought up to date), and connects them.
    private static func connect(_ bots: [CompiledBot], run: TransportRun, on hub: Hub) throws -> [String: BotConnection] {
        for bot in bots { try hub.addUser(bot.profile(as: bot.id)) }
        for queue in Set(run.bots.flatMap(\.queues)).sorted() {
            let members = run.bots.filter { $0.queues.contains(queue) }.map(\.id) + run.extraUsers
            // A stored hub may know the group from an earlier run (or an earlier reload).
            do { try hub.createGroup(queue, name: queue, members: members) } catch let error as ParleyError where error.code == .conflict {
                for member in members { try hub.addMember(member, to: queue) }
            }
        }
        var connections: [String: BotConnection] = [:]
        for bot in bots {
            let transport = try hub.connect(user: bot.id)
            connections[bot.id] = run.profiles.connection(run.wrapTransport?(bot.id, transport) ?? transport,
                                                          storage: run.storage.chat(bot: bot.id),
                                                          deliveredEventCount: { transport.deliveredEventCount })
        }
        return connections
    }

    public func broadcastSenders(storage: HostStorage) throws -> any BroadcastSenders {
        HubSenders(hub: try Hub(path: try Self.hubPath(storage, log: { FileHandle.standardError.write(Data(("parley: " + $0 + "\n").utf8)) })))
    }

    /// Where the hub keeps its tables: the host's SQLite file, after moving them there from
    /// the file a release before kept them in (`parley.hub.db`, beside it), once, with a log
    /// line; `:memory:` in memory. On PostgreSQL the hub cannot keep them (it refuses at open).
    static func hubPath(_ storage: HostStorage, log: (String) -> Void) throws -> String {
        try storage.location(ofStore: "hub", movingIn: { legacy, path in
            try Hub.moveStore(from: legacy, into: path).map { move in
                "moved the embedded hub's tables (\(move.messages) messages) from \(legacy) into \(path); the old file is kept as \(move.backup)"
            }
        }, log: log)
    }

    /// The hub where `parley run` keeps it; a bot's account is created on first use, as the
    /// host does for its bots.
    struct HubSenders: BroadcastSenders {
        let hub: Hub

        func transport(for bot: String) throws -> any Transport {
            if hub.user(bot) == nil { try hub.addUser(Profile(id: bot)) }
            return try hub.connect(user: bot)
        }

        func close() async { try? hub.close() }
    }

    public func testSetup(target: String?, environment: [String: String]) throws -> TestSetup {
        if target != nil {
            throw ParleyError(.invalidArgument, "option '--target' needs a config with 'transport: {kind: matrix}'")
        }
        return TestSetup(stage: HubTestStage(), host: InProcessBotHost())
    }
}
