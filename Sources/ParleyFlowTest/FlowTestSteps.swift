import Foundation
import ParleyBots
import ParleyCore
import ParleyHub

/// What each kind of step does, against one running test. Used by one task, step after step.
final class FlowTestSteps {
    let plan: FlowTestPlan
    let clock: FlowTestClock
    let recorder: OutputRecorder
    let session: any FlowTestBotSession
    /// The test user's own connection to the stage's server.
    let user: any Transport
    /// The stage's way to connect another speaker (`as:`).
    let connect: @Sendable (String) async throws -> any Transport
    /// Other speakers' connections, made when they first speak.
    private var speakers: [String: any Transport] = [:]
    /// True from an idle wait until the next send or clock move: nothing can happen in
    /// between, so another wait would only cost time.
    private var knownIdle = false
    /// Numbers the user's messages: their idempotency keys only need to be unique within the
    /// test's own world (a fresh hub, or fresh accounts on a live server), and `UUID()` costs
    /// a read of /dev/urandom each.
    private var sent: UInt32 = 0

    init(plan: FlowTestPlan, clock: FlowTestClock, recorder: OutputRecorder, session: any FlowTestBotSession, user: any Transport,
         connect: @escaping @Sendable (String) async throws -> any Transport) {
        self.plan = plan
        self.clock = clock
        self.recorder = recorder
        self.session = session
        self.user = user
        self.connect = connect
    }

    /// Waits until the bot is idle, unless nothing happened since it last was.
    private func idle() async throws {
        if knownIdle { return }
        try await session.waitUntilIdle()
        knownIdle = true
    }

    private typealias StepFailure = FlowTestExecution.StepFailure

    func perform(_ step: FlowTestStep) async throws {
        switch step.kind {
        case .send(let text, let channel, let speaker)?:
            try await send(text.value, in: channel.flatMap { Channel(target: $0.value) }, as: speaker?.value ?? plan.file.userID)
        case .expect(let expectation)?:
            try await expect(expectation)
        case .advance(let duration)?:
            try await advance(duration.value)
        case nil:
            throw StepFailure(step.issue ?? "invalid step")
        }
    }

    // MARK: - send

    /// The user speaks once the bot has finished with everything before, as a person would
    /// after reading the answers; so "the user's last message" is always well defined.
    private func send(_ text: String, in group: Channel?, as speaker: String) async throws {
        try await idle()
        let transport = try await connection(of: speaker)
        knownIdle = false
        let botView = group ?? .person(speaker)
        let number = recorder.recordUserMessage(text, in: botView, from: speaker, at: clock.now())
        sent += 1
        let envelope = OutgoingEnvelope(channel: group ?? .person(plan.bot.id), clientMessageID: Self.messageID(sent),
                                        payload: TextContent(text).encoded())
        do {
            let receipt = try await transport.send(envelope)
            recorder.userMessageSent(number, id: receipt.messageID, text: text)
        } catch {
            throw StepFailure("the server refused \(speaker == plan.file.userID ? "the user's" : speaker + "'s") message: \(error)")
        }
    }

    /// The test user's connection, or another speaker's from the stage (made once).
    private func connection(of speaker: String) async throws -> any Transport {
        if speaker == plan.file.userID { return user }
        if let transport = speakers[speaker] { return transport }
        do {
            let transport = try await connect(speaker)
            speakers[speaker] = transport
            return transport
        } catch {
            throw StepFailure("cannot speak as \(speaker): \(error)")
        }
    }

    /// A version-4-shaped UUID holding `number` (deterministic, so runs are repeatable).
    static func messageID(_ number: UInt32) -> UUID {
        let b = withUnsafeBytes(of: number.bigEndian) { Array($0) }
        return UUID(uuid: (0x70, 0x61, 0x72, 0x6C, 0x65, 0x79, 0x40, 0x00, 0x80, 0x00, 0, 0, b[0], b[1], b[2], b[3]))
    }

    // MARK: - expect

    private func expect(_ expectation: Expectation) async throws {
        let channel = expectation.to.flatMap { Channel(target: $0.value) } ?? .person(plan.file.userID)
        let renderer = TranscriptRenderer(recorder: recorder, botID: plan.bot.id, start: plan.start)
        if expectation.none?.value == true {
            try await idle()
            let left = recorder.pending(in: channel)
            guard left.isEmpty else {
                throw StepFailure(["expected: nothing more in \(channel.target)",
                                   "actual: \(left.count) more output\(left.count == 1 ? "" : "s"):"]
                                  + left.map { "  " + renderer.describe($0) })
            }
            return
        }
        // Outputs of one channel are recorded in order, so a queued one can be taken at once;
        // only an empty queue needs the bot to finish what it is doing.
        var output = recorder.next(in: channel)
        if output == nil {
            try await idle()
            output = recorder.next(in: channel)
        }
        guard let output else {
            throw StepFailure(["expected: \(ExpectationMatcher.describe(expectation))",
                               "actual: nothing (more) in \(channel.target) once the bot was idle"])
        }
        let problems = plan.matcher.mismatches(expectation, output)
        guard problems.isEmpty else {
            throw StepFailure(["expected: \(ExpectationMatcher.describe(expectation))",
                               "actual: \(renderer.describe(output))"] + problems)
        }
    }

    // MARK: - advance

    /// The earliest thing due: a sleeper on the clock, or a deadline the engine keeps (its
    /// timer task may not be asleep on the clock yet when the engine has just become idle).
    private func nextDeadline() async -> Date? {
        switch (clock.nextDeadline, await session.nextDeadline()) {
        case (let a?, let b?): min(a, b)
        case (let a, let b): a ?? b
        }
    }

    /// Moves the clock one due deadline at a time, letting the bot finish each wake-up before
    /// the next, so what is due at 10:00 is done before what is due at 10:05 starts.
    private func advance(_ text: String) async throws {
        let duration: Duration
        do { duration = try DurationFormat.parse(text) } catch { throw StepFailure("invalid duration: \(error.message)") }
        try await idle()
        knownIdle = false
        let from = clock.now()
        let target = from.addingTimeInterval(duration.timeInterval)
        recorder.recordAdvance(by: text, from: from, to: target)
        var wakeups = 0
        while true {
            if let next = await nextDeadline(), next <= target {
                wakeups += 1
                guard wakeups <= plan.limits.maxWakeupsPerAdvance else {
                    throw StepFailure("more than \(plan.limits.maxWakeupsPerAdvance) clock wake-ups in one advance (does the bot re-arm a timer forever?)")
                }
                clock.advance(to: next)
            } else {
                clock.advance(to: target)
            }
            try await session.waitUntilIdle()
            knownIdle = true
            if clock.now() >= target, (await nextDeadline().map { $0 > target } ?? true) { break }
        }
    }
}
