import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Synchronization

/// Where a test's conversation takes place: by default a fresh embedded hub per test
/// (`HubTestStage`); a live server (Matrix) is another stage. The runner asks the stage for
/// two connections — the bot's and the test user's — and, through `StageSession.connect`, one
/// per other speaker (`send: {…, as: USER}`), all speaking the ids the test file uses.
public protocol TestStage: Sendable {
    /// Whether time is virtual. A live server runs on real time, so tests with `advance`
    /// steps are skipped there (with `virtualTimeSkipReason`).
    var supportsVirtualTime: Bool { get }
    /// The least wall-clock time a test needs here (a live server registers accounts and
    /// talks over HTTP); nil keeps the suite's limit.
    var minimumWallClock: Duration? { get }
    /// The most tests that may run at once here; nil: as many as the suite's `jobs`. A stage
    /// whose tests share accounts runs them one at a time.
    var maximumJobs: Int? { get }
    /// Whether the bot can be restarted in the middle of a test (`restart: true`): the stage
    /// connects the bot again (`StageSession.reconnectBot`) and keeps what was sent meanwhile.
    var supportsRestart: Bool { get }
    /// Sets up the world of `run`: its cast's users (with their profiles) and groups (with
    /// their members), and the connections the test speaks through.
    func open(_ run: TestRun) async throws -> any StageSession
}

extension TestStage {
    /// Why a test with `advance` steps is skipped on a stage without virtual time.
    public var virtualTimeSkipReason: String { "uses `advance` (virtual time), which a live server cannot do" }

    /// No minimum by default.
    public var minimumWallClock: Duration? { nil }

    /// No limit by default.
    public var maximumJobs: Int? { nil }

    /// Not by default.
    public var supportsRestart: Bool { false }

    /// Why a test with a `restart` step is skipped on a stage that cannot restart the bot.
    public var restartSkipReason: String { "uses `restart`, which this stage cannot do (it does not run the bot)" }
}

/// One test's world, as a stage set it up.
public protocol StageSession: Sendable {
    /// The bot's connection (the runner records its sends).
    var botTransport: any Transport { get }
    /// The test user's connection; it sends to `.person(botID)` and the test's groups.
    var userTransport: any Transport { get }
    /// Events the server has handed the bot's connection so far (what makes idle exact).
    var deliveredEventCount: Int { get }
    /// Another user's connection (`send: {…, as: USER}`), asked for once per speaker when
    /// they first speak; it sends to `.person(botID)` and the groups the speaker is a member
    /// of (`Cast.members`). Idle stays exact only if every message sent through it is counted
    /// by `deliveredEventCount` once the server has delivered it to the bot, as the test
    /// user's are. The session closes these connections in `close`. A stage that cannot
    /// connect other users throws; the error becomes the step's failure.
    func connect(_ user: String) async throws -> any Transport
    /// A new connection of the bot, after the bot stopped (`restart: true`); from then on
    /// `botTransport` and `deliveredEventCount` are this connection's. What the server took
    /// for the bot while it was away reaches it on the new connection. A stage that cannot
    /// throws.
    func reconnectBot() async throws -> any Transport
    /// Tears the world down after the test.
    func close() async
}

extension StageSession {
    /// A stage that only has the test user's connection: a test with `as:` fails at its first
    /// such step.
    public func connect(_ user: String) async throws -> any Transport {
        throw ParleyError(.invalidArgument, "this stage has no connection for another user ('\(user)'): run the test on the embedded hub")
    }

    /// A stage without restarts.
    public func reconnectBot() async throws -> any Transport {
        throw ParleyError(.invalidArgument, "this stage cannot restart the bot: run the test on the embedded hub")
    }

    /// Nothing to tear down.
    public func close() async {}
}

/// The default stage: a fresh in-memory hub per test on the test's virtual clock, with the
/// cast's users (and profiles) and groups (the test user, the bot and the group's other
/// speakers as members).
public struct HubTestStage: TestStage {
    /// Creates the stage.
    public init() {}

    public var supportsVirtualTime: Bool { true }

    /// The hub outlives the bot, as a server does: it keeps the bot's delivery cursors and
    /// what was sent while the bot was away.
    public var supportsRestart: Bool { true }

    public func open(_ run: TestRun) async throws -> any StageSession {
        let hub = try Hub(clock: run.clock)
        for user in run.cast.users { try hub.addUser(user) }
        let members = run.userID == run.bot.id ? [run.userID] : [run.userID, run.bot.id]
        for group in run.cast.groups { try hub.createGroup(group, members: run.cast.members[group] ?? members, by: run.bot.id) }
        return Session(hub: hub, botID: run.bot.id, bot: try hub.connect(user: run.bot.id), user: try hub.connect(user: run.userID))
    }

    private final class Session: StageSession {
        let hub: Hub
        let botID: String
        /// The bot's current connection: a restart replaces it.
        private let bot: Mutex<HubTransport>
        let user: HubTransport

        init(hub: Hub, botID: String, bot: HubTransport, user: HubTransport) {
            self.hub = hub
            self.botID = botID
            self.bot = Mutex(bot)
            self.user = user
        }

        var botTransport: any Transport { bot.withLock { $0 } }
        var userTransport: any Transport { user }
        /// In memory a send returns once the hub has handed the message to the bot's stream,
        /// whoever sent it: the bot's own count already covers other speakers.
        var deliveredEventCount: Int { bot.withLock { $0 }.deliveredEventCount }
        func connect(_ user: String) async throws -> any Transport { try hub.connect(user: user) }

        func reconnectBot() async throws -> any Transport {
            await bot.withLock { $0 }.disconnect()
            let transport = try hub.connect(user: botID)
            bot.withLock { $0 = transport }
            return transport
        }
    }
}

/// Runs the bot under test for the flow-test runner: the bot engine behind a small seam, so
/// the runner knows nothing of routers or flows, only "start", "idle" and "stop".
public protocol TestBotHost: Sendable {
    /// Starts the bot of `run` in `stage`'s world on the run's clock, ready for the first step.
    /// The bot talks through `transport` (the stage's bot connection, recording every send and
    /// reaction for the runner), never through a transport of its own.
    func start(_ run: TestRun, in stage: any StageSession, transport: any Transport) async throws -> any TestBotSession
}

/// One running bot for one test.
public protocol TestBotSession: Sendable {
    /// Returns once the bot has no work in flight and nothing due at the clock's now: every
    /// message delivered to it is handled and every output has reached the transport.
    func waitUntilIdle() async throws
    /// Stops the bot; it sends nothing afterwards.
    func stop() async
    /// Stops the bot and starts it again on the same storage, talking through the transport
    /// `reconnect` makes once the bot has stopped (`restart: true`).
    func restart(reconnect: @Sendable () async throws -> any Transport) async throws
    /// The earliest deadline the bot keeps (a flow timeout, a `wait`, a schedule), if it
    /// knows; the runner moves the clock there next.
    func nextDeadline() async -> Date?
    /// Makes the next job of broadcast schedule `schedule` pause itself after `count` sends
    /// (`pause_broadcast`).
    func pauseNextBroadcast(schedule: String, afterSends count: Int) async throws
    /// Resumes every paused broadcast job of the bot; returns how many (`resume_broadcasts`).
    func resumeBroadcasts() async throws -> Int
    /// What the bot's idle check sees now (events taken, handled, work in flight), shown when
    /// an expected output is missing; nil when the bot cannot say.
    func idleReport() async -> String?
}

extension TestBotSession {
    /// Unknown: the runner relies on what sleeps on the clock.
    public func nextDeadline() async -> Date? { nil }

    /// Unknown: a bot outside this process.
    public func idleReport() async -> String? { nil }

    /// A bot that cannot be restarted from here.
    public func restart(reconnect: @Sendable () async throws -> any Transport) async throws {
        throw ParleyError(.invalidArgument, "this bot cannot be restarted by the test runner")
    }

    /// A bot whose broadcasts the runner does not hold.
    public func pauseNextBroadcast(schedule: String, afterSends count: Int) async throws {
        throw ParleyError(.invalidArgument, "this bot's broadcasts are not run by the test runner")
    }

    public func resumeBroadcasts() async throws -> Int {
        throw ParleyError(.invalidArgument, "this bot's broadcasts are not run by the test runner")
    }
}

