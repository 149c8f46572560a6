import Foundation
import ParleyBots
import ParleyCore
import ParleyRegex

/// What each kind of step does, against one running test. Used by one task, step after step.
final class StepRunner {
    let run: TestRun
    /// The running bot.
    let bot: any TestBotSession
    /// The stage's world: the test user's connection, and other speakers' (`as:`) on demand.
    let stage: any StageSession
    /// Other speakers' connections, made when they first speak.
    private var speakers: [String: any Transport] = [:]
    /// True from an idle wait until the next send or clock move: nothing can happen in
    /// between, so another wait would only cost time.
    private var knownIdle = false
    /// Numbers the user's messages: their idempotency keys only need to be unique within the
    /// test's own world (a fresh hub, or fresh accounts on a live server), and `UUID()` costs
    /// a read of /dev/urandom each.
    private var sent: UInt32 = 0
    private var clock: VirtualClock { run.clock }
    private var recorder: OutputRecorder { run.recorder }

    init(run: TestRun, bot: any TestBotSession, stage: any StageSession) {
        self.run = run
        self.bot = bot
        self.stage = stage
    }

    /// Waits until the bot is idle, unless nothing happened since it last was.
    private func idle() async throws {
        if knownIdle { return }
        try await bot.waitUntilIdle()
        knownIdle = true
    }

    private typealias StepFailure = TestRun.StepFailure

    func perform(_ step: TestStep) async throws {
        switch step.kind {
        case .send(let text, let channel, let speaker)?:
            try await send(text.value, in: channel.flatMap { Channel(target: $0.value) }, as: speaker?.value ?? run.userID)
        case .react(let emoji, let channel, let speaker)?:
            try await react(emoji.value, in: channel.flatMap { Channel(target: $0.value) }, as: speaker?.value ?? run.userID)
        case .expect(let expectation)?:
            try await expect(expectation)
        case .advance(let duration)?:
            try await advance(duration.value)
        case .restart?:
            try await restart()
        case .pauseBroadcast(let pause)?:
            do { try await bot.pauseNextBroadcast(schedule: pause.schedule.value, afterSends: pause.after.value) } catch {
                throw StepFailure("cannot pause a broadcast: \(error)")
            }
        case .resumeBroadcasts?:
            try await idle()
            knownIdle = false
            let resumed: Int
            do { resumed = try await bot.resumeBroadcasts() } catch { throw StepFailure("cannot resume broadcasts: \(error)") }
            guard resumed > 0 else { throw StepFailure("no paused broadcast to resume") }
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
        let envelope = OutgoingEnvelope(channel: group ?? .person(run.bot.id), clientMessageID: Self.messageID(sent),
                                        payload: TextContent(text).encoded())
        do {
            let receipt = try await transport.send(envelope)
            recorder.userMessageSent(number, id: receipt.messageID, text: text)
        } catch {
            throw StepFailure("the server refused \(speaker == run.userID ? "the user's" : speaker + "'s") message: \(error)")
        }
    }

    // MARK: - react

    /// The user reacts to the bot's last message in the channel, once the bot has finished
    /// with everything before (as for `send`, so "the last message" is well defined).
    private func react(_ emoji: String, in group: Channel?, as speaker: String) async throws {
        try await idle()
        let botView = group ?? .person(speaker)
        guard let messageID = recorder.lastBotMessage(in: botView) else {
            throw StepFailure("nothing to react to: the bot has sent no message in \(botView.target)")
        }
        let transport = try await connection(of: speaker)
        knownIdle = false
        recorder.recordUserReaction(emoji, on: messageID, in: botView, from: speaker, at: clock.now())
        do {
            try await transport.setReaction(emoji, on: messageID, in: group ?? .person(run.bot.id), added: true)
        } catch {
            throw StepFailure("the server refused \(speaker == run.userID ? "the user's" : speaker + "'s") reaction: \(error)")
        }
    }

    /// The test user's connection, or another speaker's from the stage (made once).
    private func connection(of speaker: String) async throws -> any Transport {
        if speaker == run.userID { return stage.userTransport }
        if let transport = speakers[speaker] { return transport }
        do {
            let transport = try await stage.connect(speaker)
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

    // MARK: - restart

    /// Once the bot has finished with everything before, it stops and starts again on its
    /// storage through a new connection, on the same clock; the transcript marks the moment.
    private func restart() async throws {
        try await idle()
        knownIdle = false
        recorder.recordRestart(at: clock.now())
        let stage = self.stage, recorder = self.recorder, clock = run.clock
        do {
            try await bot.restart {
                RecordingTransport(base: try await stage.reconnectBot(), recorder: recorder, clock: clock)
            }
        } catch {
            throw StepFailure("the bot could not restart: \(error)")
        }
    }

    // MARK: - expect

    private func expect(_ expectation: Expectation) async throws {
        let channel = expectation.to.flatMap { Channel(target: $0.value) } ?? .person(run.userID)
        let renderer = TranscriptRenderer(recorder: recorder, botID: run.bot.id, start: run.start)
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
            let seen = await bot.idleReport().map { ["idle: " + $0] } ?? []
            throw StepFailure(["expected: \(ExpectationMatcher.describe(expectation))",
                               "actual: nothing (more) in \(channel.target) once the bot was idle"] + seen)
        }
        let problems = run.matcher.mismatches(expectation, output)
        guard problems.isEmpty else {
            throw StepFailure(["expected: \(ExpectationMatcher.describe(expectation))",
                               "actual: \(renderer.describe(output))"] + problems)
        }
    }

    // MARK: - advance

    /// The earliest thing due: a sleeper on the clock, or a deadline the engine keeps (its
    /// timer task may not be asleep on the clock yet when the engine has just become idle).
    private func nextDeadline() async -> Date? {
        switch (clock.nextDeadline, await bot.nextDeadline()) {
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
                guard wakeups <= run.limits.maxWakeupsPerAdvance else {
                    throw StepFailure("more than \(run.limits.maxWakeupsPerAdvance) clock wake-ups in one advance (does the bot re-arm a timer forever?)")
                }
                clock.advance(to: next)
            } else {
                clock.advance(to: target)
            }
            try await bot.waitUntilIdle()
            knownIdle = true
            if clock.now() >= target, (await nextDeadline().map { $0 > target } ?? true) { break }
        }
    }
}

/// Decides whether one bot output satisfies an `expect:` step, and says why not.
struct ExpectationMatcher: Sendable {
    /// Compiled `matches:` patterns by source, prepared once per file.
    let patterns: [String: Pattern]

    /// Compiles every `matches:` of `file` (validation already reported bad ones; those are skipped).
    init(file: TestFile) {
        var patterns: [String: Pattern] = [:]
        for test in file.tests {
            for step in test.steps {
                guard case .expect(let expectation)? = step.kind, let source = expectation.matches?.value,
                      patterns[source] == nil else { continue }
                patterns[source] = try? Pattern(source)
            }
        }
        self.patterns = patterns
    }

    /// Nil when `output` satisfies `expectation`; otherwise each unmet part, e.g.
    /// `text: expected "pong", got "ping"`.
    func mismatches(_ expectation: Expectation, _ output: BotOutput) -> [String] {
        if let reaction = expectation.reaction?.value {
            guard case .reaction(let emoji, _, let added) = output.kind else {
                return ["expected the reaction \(reaction), got a message"]
            }
            if !added { return ["expected the reaction \(reaction), got \(emoji) taken back"] }
            return emoji == reaction ? [] : ["reaction: expected \(reaction), got \(emoji)"]
        }
        guard case .message(_, _, let replyTo) = output.kind else {
            return ["expected a message, got a reaction"]
        }
        var problems: [String] = []
        let text = output.text ?? ""
        if let expected = expectation.text?.value, text != expected {
            problems.append("text: expected \(Self.quoted(expected)), got \(Self.quoted(text))")
        }
        if let expected = expectation.contains?.value, !text.contains(expected) {
            problems.append("contains: expected the text to contain \(Self.quoted(expected)), got \(Self.quoted(text))")
        }
        if let source = expectation.matches?.value {
            if let pattern = patterns[source] {
                do {
                    if try !pattern.matches(text) {
                        problems.append("matches: expected the text to match /\(source)/, got \(Self.quoted(text))")
                    }
                } catch {
                    problems.append("matches: /\(source)/ could not run on \(Self.quoted(text)): \(error)")
                }
            } else {
                problems.append("matches: /\(source)/ is not a valid regex")
            }
        }
        let card = output.cardName
        if let expected = expectation.card?.value, card != expected {
            problems.append("card: expected \(expected), got " + (card.map { "the card \($0)" } ?? "plain text"))
        }
        if let fields = expectation.fields {
            let actual = output.fields
            for entry in fields.entries {
                let value = actual[entry.name]
                if value != entry.value.value {
                    problems.append("fields.\(entry.name): expected \(Self.quoted(entry.value.value)), got "
                                    + (value.map(Self.quoted) ?? "no such field"))
                }
            }
        }
        if expectation.quote?.value == "last" {
            if replyTo == nil {
                problems.append("quote: expected the message to quote the user's last message, it quotes nothing")
            } else if replyTo != output.lastUserMessageID {
                problems.append("quote: expected the message to quote the user's last message, it quotes another one")
            }
        }
        return problems
    }

    /// `"text"` with quotes, backslashes and line breaks escaped, so blanks stay visible.
    static func quoted(_ text: String) -> String {
        var escaped = "\""
        for character in text {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default: escaped.append(character)
            }
        }
        return escaped + "\""
    }

    /// The expectation in one line, as the report shows it (`{ to: user:bob, text: "Hi" }`).
    static func describe(_ expectation: Expectation) -> String {
        var parts: [String] = []
        if let to = expectation.to?.value { parts.append("to: \(to)") }
        if expectation.none?.value == true { parts.append("none: true") }
        if let value = expectation.text?.value { parts.append("text: \(quoted(value))") }
        if let value = expectation.contains?.value { parts.append("contains: \(quoted(value))") }
        if let value = expectation.matches?.value { parts.append("matches: \(quoted(value))") }
        if let value = expectation.card?.value { parts.append("card: \(value)") }
        if let fields = expectation.fields {
            parts.append("fields: { " + fields.entries.map { "\($0.name): \(quoted($0.value.value))" }.joined(separator: ", ") + " }")
        }
        if let value = expectation.quote?.value { parts.append("quote: \(value)") }
        if let value = expectation.reaction?.value { parts.append("reaction: \(value)") }
        return "{ " + parts.joined(separator: ", ") + " }"
    }
}
