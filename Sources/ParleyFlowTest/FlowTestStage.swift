import Foundation
import ParleyCore
import ParleyHub

/// Where a test's conversation takes place: by default a fresh embedded hub per test
/// (`HubFlowTestStage`); a live server (Matrix) is another stage. The runner asks the stage for
/// two connections — the bot's and the test user's — both speaking the ids the test file uses.
public protocol FlowTestStage: Sendable {
    /// Whether time is virtual. A live server runs on real time, so tests with `advance`
    /// steps are skipped there (with `virtualTimeSkipReason`).
    var supportsVirtualTime: Bool { get }
    /// The least wall-clock time a test needs here (a live server registers accounts and
    /// talks over HTTP); nil keeps the suite's limit.
    var minimumWallClock: Duration? { get }
    /// Sets up one test's world.
    func prepare(_ request: FlowTestStageRequest) async throws -> FlowTestScene
}

extension FlowTestStage {
    /// Why a test with `advance` steps is skipped on a stage without virtual time.
    public var virtualTimeSkipReason: String { "uses `advance` (virtual time), which a live server cannot do" }

    /// No minimum by default.
    public var minimumWallClock: Duration? { nil }
}

/// What a stage needs to know to set up one test.
public struct FlowTestStageRequest: Sendable {
    /// The user who talks in the test.
    public let userID: String
    /// The bot under test.
    public let botID: String
    /// Every user of the test with the profile it declares.
    public let users: [Profile]
    /// Every group the test names.
    public let groups: [String]
    /// The test's virtual clock.
    public let clock: ManualClock
    /// Where the bot's outputs are recorded (a stage that watches a bot it does not host
    /// records what it sees here; otherwise the runner records the bot's sends).
    public let recorder: OutputRecorder
}

/// One test's world, as a stage set it up.
public struct FlowTestScene: Sendable {
    /// The bot's connection (the runner records its sends).
    public var botTransport: any Transport
    /// The test user's connection; it sends to `.person(botID)` and the test's groups.
    public var user: any Transport
    /// Events the server has handed the bot's connection so far (what makes idle exact).
    public var deliveredEventCount: @Sendable () -> Int
    /// The embedded hub, when the stage is one.
    public var hub: Hub?
    /// For a bot the stage does not host: returns once the bot seems done (nothing new for a
    /// while); a bot host without an idle signal of its own waits with it.
    public var settle: (@Sendable () async throws -> Void)?
    /// Tears the world down after the test.
    public var close: @Sendable () async -> Void

    /// A scene.
    public init(botTransport: any Transport, user: any Transport, deliveredEventCount: @escaping @Sendable () -> Int,
                hub: Hub? = nil, settle: (@Sendable () async throws -> Void)? = nil,
                close: @escaping @Sendable () async -> Void = {}) {
        self.botTransport = botTransport
        self.user = user
        self.deliveredEventCount = deliveredEventCount
        self.hub = hub
        self.settle = settle
        self.close = close
    }
}

/// The default stage: a fresh in-memory hub per test on the test's virtual clock, with the
/// cast's users (and profiles) and groups (the test user and the bot as members).
public struct HubFlowTestStage: FlowTestStage {
    /// Creates the stage.
    public init() {}

    public var supportsVirtualTime: Bool { true }

    public func prepare(_ request: FlowTestStageRequest) async throws -> FlowTestScene {
        let hub = try Hub(clock: request.clock)
        for user in request.users { try hub.addUser(user) }
        let members = request.userID == request.botID ? [request.userID] : [request.userID, request.botID]
        for group in request.groups { try hub.createGroup(group, members: members, by: request.botID) }
        let bot = try hub.connect(user: request.botID)
        return FlowTestScene(botTransport: bot, user: try hub.connect(user: request.userID),
                             deliveredEventCount: { bot.deliveredEventCount }, hub: hub)
    }
}

extension FlowTestStep {
    /// True for an `advance` step (which needs virtual time).
    var isAdvance: Bool {
        if case .advance? = kind { return true }
        return false
    }
}
