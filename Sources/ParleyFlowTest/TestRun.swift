import Foundation
import ParleyBots
import ParleyCore
import Synchronization

/// One run of one test, the context everything shares: the stage sets up the run's cast from
/// it, the bot host starts the bot on its clock and logs into its transcript, the steps record
/// into its recorder and match with its file's patterns, the failure report names its file and
/// test. Each run starts from scratch (a fresh clock and recorder), so the runs of a suite may
/// go in any order.
public struct TestRun: Sendable {
    /// The test file as shown to users.
    public let file: String
    /// The bot under test, as loaded from its file.
    public let bot: LoadedBot
    /// The user who talks in the test.
    public let userID: String
    /// Who exists in the test's world: users with their profiles, groups with their members.
    public let cast: Cast
    /// The virtual clock everything runs on; time moves only on `advance` steps.
    public let clock: VirtualClock
    /// The conversation so far. The runner records the bot's sends; a stage that watches a bot
    /// it does not host records what it sees here.
    public let recorder: OutputRecorder
    /// The clock's start: the file's `now`, else 2026-01-01T00:00:00Z.
    let start: Date
    let test: TestCase
    /// The file's compiled `matches:` patterns.
    let matcher: ExpectationMatcher
    let limits: TestLimits

    /// The test's name.
    public var name: String { test.name.value }

    /// Adds a line to the test's transcript (the engine's warnings and errors go here).
    public func log(_ line: String) { recorder.recordLog(line, at: clock.now()) }

    /// The default start when a file has no `now`.
    static let defaultStart = Date(timeIntervalSince1970: 1_767_225_600)

    /// One run per test of a validated `definition` (shown as `file`) of `bot`; the cast and
    /// the patterns are worked out once for the whole file.
    static func runs(of definition: TestFile, file: String, bot: LoadedBot, limits: TestLimits) -> [TestRun] {
        // Hand-off queues post into `group:<queue>`: the compiled bot knows them. A bot that
        // does not compile fails at start, with the engine's message.
        let queues = (try? CompiledBot(id: bot.id, definition: bot.definition, file: bot.file))?.queues ?? []
        let cast = Cast(file: definition, bot: bot, queues: queues)
        let matcher = ExpectationMatcher(file: definition)
        let start = definition.now.flatMap { try? Date($0.value, strategy: .iso8601) } ?? defaultStart
        return definition.tests.map { test in
            TestRun(file: file, bot: bot, userID: definition.userID, cast: cast, clock: VirtualClock(start: start),
                    recorder: OutputRecorder(userID: definition.userID), start: start, test: test, matcher: matcher, limits: limits)
        }
    }
}

/// Who exists in a test's world: the test user, the bot, every user with a profile, every
/// user and group the file names (`to:`, `in:`, `as:`), the static targets of the bot's scheduled
/// broadcasts and the groups of its hand-off queues (`group:<queue>`). Groups have the test
/// user and the bot as members, and whoever speaks in them (`as:` with `in:`): the server
/// would refuse a non-member's message. Worked out once per file.
public struct Cast: Sendable {
    /// Users with their profiles, in a stable order.
    public let users: [Profile]
    /// Group ids, sorted.
    public let groups: [String]
    /// Each group's members: the test user, the bot, then its other speakers in order of appearance.
    public let members: [String: [String]]
    /// Users other than the test user who speak (`as:`), in order of appearance.
    public let speakers: [String]

    init(file: TestFile, bot: LoadedBot, queues: Set<String> = []) {
        var profiles: [String: Profile] = [:]
        var order: [String] = []
        func addUser(_ id: String, _ profile: Profile? = nil) {
            if profiles[id] == nil { order.append(id) }
            if let profile { profiles[id] = profile } else if profiles[id] == nil { profiles[id] = Profile(id: id) }
        }
        var groups: Set<String> = []
        func addTarget(_ target: String) {
            guard let channel = Channel(target: target) else { return }
            switch channel.kind {
            case .person: addUser(channel.id)
            case .group: groups.insert(channel.id)
            case .local: break
            }
        }
        addUser(file.userID)
        addUser(bot.id, bot.definition.profile(id: bot.id))
        for entry in file.profiles?.entries ?? [] { addUser(entry.name, entry.value.profile(id: entry.name)) }
        var speakers: [String] = []
        var groupSpeakers: [String: [String]] = [:]
        for test in file.tests {
            for step in test.steps {
                switch step.kind {
                case .send(_, let channel, let speaker)?, .react(_, let channel, let speaker)?:
                    if let channel { addTarget(channel.value) }
                    guard let id = speaker?.value, id != file.userID else { break }
                    addUser(id)
                    if !speakers.contains(id) { speakers.append(id) }
                    if let group = channel.flatMap({ Channel(target: $0.value) }), group.kind == .group,
                       !groupSpeakers[group.id, default: []].contains(id) {
                        groupSpeakers[group.id, default: []].append(id)
                    }
                case .expect(let expectation)?: if let to = expectation.to { addTarget(to.value) }
                default: break
                }
            }
        }
        for schedule in bot.definition.schedules {
            for target in schedule.broadcast?.value.to ?? [] { addTarget(target.value) }
        }
        groups.formUnion(queues)
        users = order.compactMap { profiles[$0] }
        self.groups = groups.sorted()
        self.speakers = speakers
        let everyone = file.userID == bot.id ? [file.userID] : [file.userID, bot.id]
        members = Dictionary(uniqueKeysWithValues: self.groups.map { group in
            (group, everyone + (groupSpeakers[group] ?? []))
        })
    }
}

/// Running one test: the stage's world and the bot started on a recording transport, then
/// the steps in order. Never hangs: the steps are bounded and the whole test has a wall-clock cap.
extension TestRun {
    /// A step's problem: one line per expected/actual item.
    struct StepFailure: Error {
        var details: [String]
        init(_ details: [String]) { self.details = details }
        init(_ detail: String) { details = [detail] }
    }

    /// Runs the test on `stage` with the bot started by `host`; `watchdog` times its wall-clock cap.
    func execute(on stage: any TestStage, host: any TestBotHost, watchdog: WallClockWatchdog) async -> TestResult {
        let began = ContinuousClock.now
        let progress = StepProgress()
        let status: TestStatus
        if test.steps.count > limits.maxSteps {
            status = .failed(failure(at: nil, ["the test has \(test.steps.count) steps, more than the budget of \(limits.maxSteps)"]))
        } else if let finished = await WallClockCap.run(limit: limits.wallClock, watchdog: watchdog, { [self] in
            await runSteps(on: stage, host: host, progress: progress)
        }) {
            status = finished
        } else {
            let index = progress.index.load(ordering: .relaxed)
            status = .failed(failure(at: index >= 0 ? index : nil, [
                "the test took longer than its wall-clock cap of \(limits.wallClock) (the bot never became idle?)"]))
        }
        let steps = max(0, progress.index.load(ordering: .relaxed) + 1)
        return TestResult(name: name, status: status, steps: steps, seconds: (ContinuousClock.now - began).timeInterval)
    }

    private func runSteps(on stage: any TestStage, host: any TestBotHost, progress: StepProgress) async -> TestStatus {
        let world: any StageSession
        do {
            world = try await stage.open(self)
        } catch {
            return .failed(failure(at: nil, ["the test could not start: \(error)"]))
        }
        let session: any TestBotSession
        do {
            let transport = RecordingTransport(base: world.botTransport, recorder: recorder, clock: clock)
            session = try await host.start(self, in: world, transport: transport)
        } catch {
            await world.close()
            return .failed(failure(at: nil, ["the test could not start: \(error)"]))
        }
        let steps = StepRunner(run: self, bot: session, stage: world)
        var status = TestStatus.passed
        for (index, step) in test.steps.enumerated() {
            progress.index.store(index, ordering: .relaxed)
            do {
                try Task.checkCancellation()
                try await steps.perform(step)
            } catch let stepFailure as StepFailure {
                status = .failed(failure(at: index, stepFailure.details))
                break
            } catch {
                status = .failed(failure(at: index, ["the step failed: \(error)"]))
                break
            }
        }
        await session.stop()
        await world.close()
        return status
    }

    private func failure(at index: Int?, _ details: [String]) -> TestFailure {
        let step = index.map { test.steps[$0] }
        let mark = step?.mark ?? test.name.mark
        let transcript = TranscriptRenderer(recorder: recorder, botID: bot.id, start: start).lines()
        return TestFailure(file: file, line: mark.line, column: mark.column, test: name,
                           step: step.map(Self.describe) ?? "setup", details: details, transcript: transcript)
    }

    /// A step in one line, as written.
    static func describe(_ step: TestStep) -> String {
        switch step.kind {
        case .send(let text, let channel, let speaker)?:
            "send: \(ExpectationMatcher.quoted(text.value))" + (channel.map { " in \($0.value)" } ?? "")
                + (speaker.map { " as \($0.value)" } ?? "")
        case .react(let emoji, let channel, let speaker)?:
            "react: \(emoji.value)" + (channel.map { " in \($0.value)" } ?? "") + (speaker.map { " as \($0.value)" } ?? "")
        case .expect(let expectation)?:
            "expect: " + ExpectationMatcher.describe(expectation)
        case .advance(let duration)?:
            "advance: \(duration.value)"
        case .restart?:
            "restart: true"
        case .pauseBroadcast(let pause)?:
            "pause_broadcast: \(pause.schedule.value) after \(pause.after.value)"
        case .resumeBroadcasts?:
            "resume_broadcasts: true"
        case nil:
            "an invalid step"
        }
    }
}

/// The index of the step a test is at, readable when the wall-clock cap strikes.
final class StepProgress: Sendable {
    let index = Atomic<Int>(-1)
}
