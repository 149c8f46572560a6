import ParleyBots
import YAMLCoding

/// A conversation-flow test file (`bots/<anything>.test.yaml`): which bot, who talks, the
/// virtual start time, optional profiles, and the tests.
public struct TestFile: Decodable, Sendable {
    /// Id of the bot under test.
    public var bot: Located<String>
    /// The user who talks; default "tester".
    public var user: Located<String>?
    /// Virtual clock start (ISO 8601), optional.
    public var now: Located<String>?
    /// Profiles of this test's users.
    public var profiles: OrderedMap<ProfileEntry>?
    /// The tests, each starting from fresh state.
    public var tests: [TestCase]

    /// The talking user's id.
    public var userID: String { user?.value ?? "tester" }
}

/// One test: a name and its steps.
public struct TestCase: Decodable, Sendable {
    /// Shown in reports.
    public var name: Located<String>
    /// Steps in order.
    public var steps: [TestStep]
}

/// One step of a flow test, with the line it is on (failures print it).
public struct TestStep: Decodable, Sendable {
    /// What the step does.
    public enum Kind: Sendable {
        /// The test user, or the user `as`, sends `text`: in a group (`in`, a group target) or
        /// else in the speaker's direct conversation with the bot.
        case send(text: Located<String>, in: Located<String>?, as: Located<String>?)
        /// The test user, or the user `as`, reacts with `emoji` to the bot's last message in
        /// a group (`in`) or else in the speaker's direct conversation with the bot.
        case react(emoji: Located<String>, in: Located<String>?, as: Located<String>?)
        /// The next output in a channel must match.
        case expect(Expectation)
        /// Virtual time passes; due schedules and timeouts fire.
        case advance(Located<String>)
        /// Once the bot is idle, it stops and starts again on the same storage, as `parley
        /// run` after a crash or a restart: what the store keeps must carry the story on.
        case restart(Located<Bool>)
        /// The next job of the schedule pauses itself once it has started `after` sends (a
        /// job stopped halfway at a known recipient, as an operator's pause would).
        case pauseBroadcast(PauseBroadcast)
        /// Once the bot is idle, every paused broadcast job of the bot is resumed.
        case resumeBroadcasts(Located<Bool>)
    }

    /// `pause_broadcast: {schedule: NAME, after: N}`.
    public struct PauseBroadcast: Decodable, Sendable {
        public var schedule: Located<String>
        public var after: Located<Int>
    }

    /// The step's action; nil only for a step that failed validation.
    public var kind: Kind?
    /// Where the step starts.
    public var mark: Mark
    /// A problem found while decoding (zero or several step keys), reported by validation.
    public var issue: String?

    /// The step's line in the file.
    public var line: Int { mark.line }

    /// True for an `advance` step (which needs virtual time).
    var isAdvance: Bool {
        if case .advance? = kind { return true }
        return false
    }

    /// True for a `restart` step (which needs a stage that can reconnect the bot).
    var isRestart: Bool {
        if case .restart? = kind { return true }
        return false
    }

    enum CodingKeys: String, CodingKey {
        case send, react, expect, advance, restart, `in`, `as`
        case pauseBroadcast = "pause_broadcast", resumeBroadcasts = "resume_broadcasts"
    }

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var kinds: [(String, Kind)] = []
        // `in:` and `as:` may also stand beside `send:` / `react:` in the step's own mapping.
        let speakerIn = try container.decodeIfPresent(Located<String>.self, forKey: .in)
        let speakerAs = try container.decodeIfPresent(Located<String>.self, forKey: .as)
        var problems: [String] = []
        func merged(_ inner: Located<String>?, _ outer: Located<String>?, key: String) -> Located<String>? {
            if inner != nil && outer != nil { problems.append("'\(key)' is given twice: inside the step's mapping and beside it") }
            return inner ?? outer
        }
        if let message = try container.decodeIfPresent(Spoken<SentText>.self, forKey: .send) {
            kinds.append(("send", .send(text: message.value, in: merged(message.in, speakerIn, key: "in"),
                                        as: merged(message.as, speakerAs, key: "as"))))
        }
        if let reaction = try container.decodeIfPresent(Spoken<Reaction>.self, forKey: .react) {
            kinds.append(("react", .react(emoji: reaction.value, in: merged(reaction.in, speakerIn, key: "in"),
                                          as: merged(reaction.as, speakerAs, key: "as"))))
        }
        if let expectation = try container.decodeIfPresent(Expectation.self, forKey: .expect) {
            kinds.append(("expect", .expect(expectation)))
        }
        if let duration = try container.decodeIfPresent(Located<String>.self, forKey: .advance) {
            kinds.append(("advance", .advance(duration)))
        }
        if let restart = try container.decodeIfPresent(Located<Bool>.self, forKey: .restart) {
            kinds.append(("restart", .restart(restart)))
        }
        if let pause = try container.decodeIfPresent(PauseBroadcast.self, forKey: .pauseBroadcast) {
            kinds.append(("pause_broadcast", .pauseBroadcast(pause)))
        }
        if let resume = try container.decodeIfPresent(Located<Bool>.self, forKey: .resumeBroadcasts) {
            kinds.append(("resume_broadcasts", .resumeBroadcasts(resume)))
        }
        kind = kinds.first?.1
        switch kinds.count {
        case 0: issue = "expected a step: send, react, expect, advance, restart, pause_broadcast or resume_broadcasts"
        case 1:
            let speaks = kinds[0].0 == "send" || kinds[0].0 == "react"
            if !speaks, speakerIn != nil || speakerAs != nil {
                problems.append("'in' and 'as' go with a 'send' or 'react' step, not with '\(kinds[0].0)'")
            }
            issue = problems.first
        default: issue = "one step per list item, found " + kinds.map { "'\($0.0)'" }.joined(separator: " and ") + ": start a new item with '- ' for each"
        }
    }
}

/// What a `send:` or `react:` step says: the main value (`text`, `emoji`) alone, or a mapping
/// of it with `in` and `as`, told apart by the node's shape.
private protocol SpokenValue {
    /// The main value's key in the mapping.
    static var key: String { get }
    /// The value, for the error about a sequence.
    static var what: String { get }
}

private enum SentText: SpokenValue {
    static let key = "text"
    static let what = "the text to send"
}

private enum Reaction: SpokenValue {
    static let key = "emoji"
    static let what = "the emoji to react with"
}

/// `send: TEXT` or `send: {text, in, as}`; `react: EMOJI` or `react: {emoji, in, as}`.
private struct Spoken<Value: SpokenValue>: Decodable {
    var value: Located<String>
    var `in`: Located<String>?
    var `as`: Located<String>?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if decoder.yamlNode?.mapping != nil {
            let container = try decoder.container(keyedBy: Key.self)
            value = try container.decode(Located<String>.self, forKey: Key(Value.key))
            `in` = try container.decodeIfPresent(Located<String>.self, forKey: Key("in"))
            `as` = try container.decodeIfPresent(Located<String>.self, forKey: Key("as"))
        } else if decoder.yamlNode?.sequence != nil {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath,
                debugDescription: "expected \(Value.what), or a mapping {\(Value.key), in, as}, found a sequence"))
        } else {
            value = try Located(from: decoder)
            `in` = nil
            `as` = nil
        }
    }
}

/// `expect:` — what the next output of a channel must be.
public struct Expectation: Decodable, Sendable {
    /// Exact text.
    public var text: Located<String>?
    /// Substring of the text.
    public var contains: Located<String>?
    /// Regex the text must match.
    public var matches: Located<String>?
    /// Card name.
    public var card: Located<String>?
    /// Card fields that must have these values.
    public var fields: OrderedMap<Located<String>>?
    /// `last`: the message quotes the user's last message.
    public var quote: Located<String>?
    /// A reaction (emoji) rather than a message.
    public var reaction: Located<String>?
    /// The channel (`user:ID` / `group:ID`); default: the direct conversation.
    public var to: Located<String>?
    /// `true`: nothing is left in the channel once the bot is idle.
    public var none: Located<Bool>?
    /// Where the expectation starts.
    public var mark: Mark

    enum CodingKeys: String, CodingKey { case text, contains, matches, card, fields, quote, reaction, to, none }

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decodeIfPresent(Located<String>.self, forKey: .text)
        contains = try container.decodeIfPresent(Located<String>.self, forKey: .contains)
        matches = try container.decodeIfPresent(Located<String>.self, forKey: .matches)
        card = try container.decodeIfPresent(Located<String>.self, forKey: .card)
        fields = try container.decodeIfPresent(OrderedMap<Located<String>>.self, forKey: .fields)
        quote = try container.decodeIfPresent(Located<String>.self, forKey: .quote)
        reaction = try container.decodeIfPresent(Located<String>.self, forKey: .reaction)
        to = try container.decodeIfPresent(Located<String>.self, forKey: .to)
        none = try container.decodeIfPresent(Located<Bool>.self, forKey: .none)
    }
}
