import Foundation
import ParleyBots
import ParleyCore
import ParleyFlowTest
import ParleyHub
import YAMLCoding

/// One transport kind as the host composes it: its `transport:` section (decoded and
/// checked against the bots that will use it), the bots' connections for a run, the route of
/// one-off broadcasts, and where flow tests run. The engine below never learns which kind it
/// runs on: everything transport-specific is behind this protocol.
///
/// Adding a transport: its target (a `Transport`), one provider conforming here, and one line
/// in `TransportKinds.all`.
public protocol TransportProvider: Sendable {
    /// The `transport.kind` value this provider serves.
    static var kind: String { get }

    /// Decodes `section` (the whole `transport:` mapping) with this kind's own keys and checks
    /// it against the bots that will run on it. Problems carry the file, line and column.
    static func load(_ section: TransportConfig, bots: [LoadedBot], source: SourceFile,
                     environment: [String: String]) -> Result<any TransportProvider, YAMLErrors>

    /// Connects the bots of a run: logs them in, joins what they need. A problem that stops
    /// the run (a bad password, an unreachable server, a room that cannot be joined) is
    /// thrown, naming the bot and what failed.
    func connect(_ run: TransportRun) async throws -> TransportSession

    /// The bots' accounts for `parley broadcast(s)`, which send with no bot running.
    func broadcastSenders(storage: HostStorage) throws -> any BroadcastSenders

    /// The bots' accounts as a process that does not run them uses them to help send their
    /// broadcasts (several processes on one PostgreSQL): nil when this kind cannot (the
    /// embedded hub lives in one process; Matrix with encryption, whose device keys only the
    /// bot's holder may use).
    func broadcastHelpers(storage: HostStorage) throws -> (any BroadcastSenders)?

    /// Where `parley test` runs flow tests on this kind; `target` is an account the tests talk
    /// to instead of a bot hosted here (a kind that cannot do that throws `invalidArgument`).
    func testSetup(target: String?, environment: [String: String]) throws -> TestSetup
}

/// What a provider gets to connect a run's bots.
public struct TransportRun: Sendable {
    /// The bots that compiled, in file order.
    public var bots: [CompiledBot]
    /// The host's storage (`storage.path`).
    public var storage: HostStorage
    /// Profiles of the config (`profiles:`), if any.
    public var profiles: HostProfiles
    /// Users that exist besides the bots (the console's user on the embedded hub).
    public var extraUsers: [String]
    /// The host clock.
    public var clock: any ParleyClock
    /// Where the provider logs.
    public var logger: BotLogger
    /// Wraps each bot's transport (`parley chat --record` records through it).
    public var wrapTransport: (@Sendable (_ botID: String, _ transport: any Transport) -> any Transport)?
}

/// The bots' side of a transport, connected.
public struct TransportSession: Sendable {
    /// Each bot's connection, by bot id.
    public var connections: [String: BotConnection]
    /// Fields of the "host started" log line (`homeserver`, …).
    public var summary: [String: String]
    /// The embedded hub, when this transport is one (the console reads it).
    public var hub: Hub?
    /// Releases what the session holds once the bots have stopped.
    public var close: @Sendable () async -> Void
    /// Deletes the transport's own records older than the date given (`storage.retention`:
    /// seen Matrix events); returns how many. Nil: it keeps none that age.
    public var prune: (@Sendable (Date) async throws -> Int)?
    /// Each bot's sync loop, for a transport that long-polls (Matrix): `/healthz` calls a bot
    /// degraded when its last answer is older than two intervals.
    public var syncWatches: [String: SyncWatch] = [:]
    /// Connects bots a reload added, on this session's server: `run` holds every bot the
    /// host runs after the reload, the ids those to connect; the provider is the reloaded
    /// config's (its transport section unchanged). What it returns holds only the new bots
    /// (their connections, sync watches, clean-up). Nil: this transport cannot add bots live.
    public var connectMore: (@Sendable (_ provider: any TransportProvider, _ run: TransportRun,
                                        _ ids: Set<String>) async throws -> TransportSession)?

    /// A session.
    public init(connections: [String: BotConnection], summary: [String: String] = [:], hub: Hub? = nil,
                close: @escaping @Sendable () async -> Void = {}) {
        self.connections = connections
        self.summary = summary
        self.hub = hub
        self.close = close
    }
}

/// A bot's sync loop as `/healthz` watches it.
public struct SyncWatch: Sendable {
    /// When the last sync answer was handled (nil: none yet).
    public var lastSync: @Sendable () -> Date?
    /// The longest a healthy loop goes between answers (one long-poll and its margin).
    public var interval: Duration

    /// A watch.
    public init(lastSync: @escaping @Sendable () -> Date?, interval: Duration) {
        self.lastSync = lastSync
        self.interval = interval
    }
}

/// Where flow tests run: the stage (the server and the test's accounts) and the bot host.
public struct TestSetup: Sendable {
    /// The stage.
    public var stage: any TestStage
    /// What runs the bot under test (the engine, or nothing for an outside `target`).
    public var host: any TestBotHost

    /// A setup.
    public init(stage: any TestStage, host: any TestBotHost) {
        self.stage = stage
        self.host = host
    }
}

/// The accounts one-off broadcasts send through (`parley broadcast`, `parley broadcasts
/// --resume`): each bot's, speaking the names its bot file uses.
public protocol BroadcastSenders: Sendable {
    /// The transport of `bot`'s account.
    func transport(for bot: String) throws -> any Transport
    /// Releases what the senders hold (the embedded hub writes its cursors).
    func close() async
}

extension TransportProvider {
    public func broadcastHelpers(storage: HostStorage) throws -> (any BroadcastSenders)? { nil }
}
