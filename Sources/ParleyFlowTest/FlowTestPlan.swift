import Foundation
import ParleyBots
import ParleyCore

/// A validated test file made ready to run: its bot, cast, compiled regexes and start time.
/// Each test of the plan runs from scratch, so the tests of a plan may run in any order.
struct FlowTestPlan: Sendable {
    /// The file as shown to users.
    let displayPath: String
    let file: FlowTestFile
    let bot: LoadedBot
    let cast: FlowTestCast
    let matcher: ExpectationMatcher
    /// The virtual clock's start: the file's `now`, else 2026-01-01T00:00:00Z.
    let start: Date
    let host: any FlowTestBotHost
    /// Where each test's conversation takes place.
    let stage: any FlowTestStage
    let limits: FlowTestLimits

    /// The default start when a file has no `now`.
    static let defaultStart = Date(timeIntervalSince1970: 1_767_225_600)

    init(displayPath: String, file: FlowTestFile, bot: LoadedBot, host: any FlowTestBotHost,
         stage: any FlowTestStage = HubFlowTestStage(), limits: FlowTestLimits) {
        self.displayPath = displayPath
        self.file = file
        self.bot = bot
        self.host = host
        self.stage = stage
        self.limits = limits
        // Hand-off queues post into `group:<queue>`: the compiled bot knows them. A bot that
        // does not compile fails at start, with the engine's message.
        let queues = (try? CompiledBot(id: bot.id, definition: bot.definition, file: bot.file))?.queues ?? []
        cast = FlowTestCast(file: file, bot: bot, queues: queues)
        matcher = ExpectationMatcher(file: file)
        start = file.now.flatMap { try? Date($0.value, strategy: .iso8601) } ?? Self.defaultStart
    }

    /// Every profile of the cast (the hub's users).
    var profiles: [Profile] { cast.users }
}
