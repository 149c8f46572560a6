import Foundation
import ParleyBots
import ParleyCore
import YAMLCoding

/// A flow-test file that decoded: its path as shown, the tests and its text.
public struct LoadedTestFile: Sendable {
    /// Path as shown in messages (`bots/support.test.yaml`).
    public var file: String
    /// The decoded file.
    public var definition: TestFile
    /// The file's text, for positioned messages.
    public var source: SourceFile

    /// Reads, decodes and validates one test file against the host's bots (what `parley check`
    /// and `parley test` both do). The test is returned when it decoded, even with validation
    /// errors: run it only when `errors` is empty.
    public static func load(file: String, path: String, bots: [LoadedBot],
                            environment: [String: String]) -> (test: LoadedTestFile?, errors: [YAMLError]) {
        let text: String
        switch TextFile.read(path, displayPath: file) {
        case .failure(let error): return (nil, [error])
        case .success(let value): text = value
        }
        let source = SourceFile(name: file, text: text)
        do {
            let definition = try YAMLDecoder(environment: environment).decode(TestFile.self, from: text, file: file)
            return (LoadedTestFile(file: file, definition: definition, source: source),
                    TestFileValidator.validate(definition, source: source, bots: bots))
        } catch {
            return (nil, error.errors)
        }
    }
}

/// Checks a decoded test file against the host's bots: the bot exists, cards and targets are
/// valid, durations and regexes parse, each step is one thing.
public enum TestFileValidator {
    /// Every problem in `file` (read from `source`), given the host's loaded bots.
    public static func validate(_ file: TestFile, source: SourceFile, bots: [LoadedBot]) -> [YAMLError] {
        var errors: [YAMLError] = []
        func fail(_ mark: Mark, _ message: String) { errors.append(source.error(at: mark, message)) }
        let bot = bots.first { $0.id == file.bot.value }
        if bot == nil {
            let known = bots.map(\.id)
            fail(file.bot.mark, "unknown bot '\(file.bot.value)': expected one of the host's bots ("
                + (known.isEmpty ? "there are none" : known.joined(separator: ", ")) + ")")
        }
        if let user = file.user, user.value.isEmpty || user.value.contains(" ") {
            fail(user.mark, "invalid user '\(user.value)': expected a user id without spaces")
        }
        if let now = file.now, (try? Date(now.value, strategy: .iso8601)) == nil {
            fail(now.mark, "invalid time '\(now.value)': expected ISO 8601 like \"2026-12-01T08:59:00Z\"")
        }
        if file.tests.isEmpty { fail(file.bot.mark, "no tests: expected a 'tests:' list with at least one test") }
        var names: Set<String> = []
        for test in file.tests {
            if !names.insert(test.name.value).inserted { fail(test.name.mark, "duplicate test name '\(test.name.value)'") }
            if test.steps.isEmpty { fail(test.name.mark, "test '\(test.name.value)' has no steps") }
            for step in test.steps {
                if let issue = step.issue { fail(step.mark, issue) }
                switch step.kind {
                case .send(_, let channel, let speaker)?, .react(_, let channel, let speaker)?:
                    if let channel, Channel(target: channel.value)?.kind != .group {
                        fail(channel.mark, "invalid 'in' target '\(channel.value)': expected group:ID (the direct conversation is the default)")
                    }
                    if let speaker { check(speaker: speaker, botID: file.bot.value, fail: fail) }
                    if case .react(let emoji, _, _)? = step.kind, !ValueCheck.isEmoji(emoji.value) {
                        fail(emoji.mark, "invalid reaction '\(emoji.value)': expected one emoji, like \"👍\"")
                    }
                case .advance(let duration)?:
                    if let error = ValueCheck.duration(duration, in: source) { errors.append(error) }
                case .restart(let flag)? where !flag.value:
                    fail(flag.mark, "'restart: false' means nothing: write 'restart: true' or leave the step out")
                case .resumeBroadcasts(let flag)? where !flag.value:
                    fail(flag.mark, "'resume_broadcasts: false' means nothing: write 'resume_broadcasts: true' or leave the step out")
                case .pauseBroadcast(let pause)?:
                    // Without the bot (unknown, reported elsewhere) there is nothing to check against.
                    if let bot, !bot.definition.schedules.contains(where: { $0.name.value == pause.schedule.value && $0.broadcast != nil }) {
                        fail(pause.schedule.mark, "bot '\(file.bot.value)' has no broadcast schedule '\(pause.schedule.value)'")
                    }
                    if pause.after.value < 0 { fail(pause.after.mark, "'after' counts sends: expected 0 or more") }
                case .expect(let expectation)?:
                    check(expectation, bot: bot, source: source, errors: &errors)
                default:
                    break
                }
            }
        }
        return errors.sortedByPosition()
    }

    /// `as: USER`: someone who talks to the bot, named as the file names users elsewhere.
    private static func check(speaker: Located<String>, botID: String, fail: (Mark, String) -> Void) {
        let id = speaker.value
        if id.isEmpty || id.contains(" ") {
            fail(speaker.mark, "invalid 'as' user '\(id)': expected a user id without spaces")
        } else if let channel = Channel(target: id) {
            fail(speaker.mark, "invalid 'as' user '\(id)': expected a user id like '\(channel.id)', not a target")
        } else if id == botID {
            fail(speaker.mark, "invalid 'as' user '\(id)': that is the bot under test; expected a user who talks to it")
        }
    }

    private static func check(_ expectation: Expectation, bot: LoadedBot?, source: SourceFile, errors: inout [YAMLError]) {
        func fail(_ mark: Mark, _ message: String) { errors.append(source.error(at: mark, message)) }
        let what: [Located<String>?] = [expectation.text, expectation.contains, expectation.matches, expectation.card, expectation.reaction]
        if expectation.none?.value == true {
            if what.contains(where: { $0 != nil }) || expectation.fields != nil || expectation.quote != nil {
                fail(expectation.mark, "'none: true' expects silence, so it takes no other key except 'to'")
            }
        } else if what.allSatisfy({ $0 == nil }) && expectation.fields == nil && expectation.quote == nil {
            fail(expectation.mark, "empty expectation: expected text, contains, matches, card, fields, quote, reaction or none")
        }
        if let none = expectation.none, !none.value {
            fail(none.mark, "'none: false' means nothing: write 'none: true' or leave it out")
        }
        if let matches = expectation.matches, case .failure(let error) = ValueCheck.regex(matches, in: source) {
            errors.append(error)
        }
        if let quote = expectation.quote, quote.value != "last" {
            fail(quote.mark, "invalid quote '\(quote.value)': expected last")
        }
        if let to = expectation.to, Channel(target: to.value).map({ $0.kind == .local }) ?? true {
            fail(to.mark, "invalid target '\(to.value)': expected user:ID or group:ID")
        }
        if let fields = expectation.fields, expectation.card == nil, let first = fields.entries.first {
            fail(first.keyMark, "'fields' needs a 'card' in the same expectation")
        }
        if let card = expectation.card, let bot {
            if let known = bot.definition.fields(ofCard: card.value) {
                for field in expectation.fields?.entries ?? [] where !known.contains(field.name) {
                    fail(field.keyMark, "card '\(card.value)' has no field '\(field.name)': its fields are " + known.joined(separator: ", "))
                }
            } else {
                fail(card.mark, "unknown card '\(card.value)' for bot '\(bot.id)': expected one of " + bot.definition.cardNames.joined(separator: ", "))
            }
        }
    }
}
