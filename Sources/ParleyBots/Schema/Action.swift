import YAMLCoding

/// One thing a bot does. Written in a `do:` list, or directly as a key of a command, trigger
/// or flow step. Values keep their position for validation errors.
public enum Action: Sendable {
    /// `reply: TEXT` — a text message in the conversation; `quote: true` in the same item
    /// makes it quote (reply to) the triggering message.
    case reply(text: Located<String>, quote: Bool)
    /// `send: {text | card + fields, to}` — a text or card, to the conversation or `to:`.
    case send(SendAction, quote: Bool)
    /// `react: EMOJI` — react to the triggering message.
    case react(Located<String>)
    /// `unreact: EMOJI` — remove the bot's reaction from the triggering message.
    case unreact(Located<String>)
    /// `broadcast: {to | to_file, send, rate}` — one content to many targets, rate-limited.
    case broadcast(BroadcastAction)
    /// `goto: TARGET` — continue in a flow. TARGET is `end` (leave the flow), `FLOW.STEP`, a bare
    /// `STEP` of the flow the action is in, or a bare `FLOW` (its first step); a step of the
    /// current flow wins over a flow of the same name.
    case goto(Located<String>)
    /// `set: {name: value}` — conversation variables, read as `{{vars.name}}`.
    case set(OrderedMap<Located<String>>)
    /// `handoff: {queue, note}` — pass the conversation to human agents.
    case handoff(HandoffAction)
    /// `wait: DURATION` — pause before the next action.
    case wait(Located<String>)

    /// The YAML key of each action: the one list of them. Its order is the order the keys are
    /// looked for, and the order messages list them in.
    public enum Key: String, CaseIterable, Sendable {
        case reply, send, react, unreact, broadcast, goto, set, handoff, wait
    }

    /// The YAML key of this action.
    public var key: Key {
        switch self {
        case .reply: return .reply
        case .send: return .send
        case .react: return .react
        case .unreact: return .unreact
        case .broadcast: return .broadcast
        case .goto: return .goto
        case .set: return .set
        case .handoff: return .handoff
        case .wait: return .wait
        }
    }
}

extension Action.Key {
    /// Reads this key's value in `reader`'s mapping as an action, `quote` from the same
    /// mapping; nil when the value does not decode (`reader` has recorded why).
    func decode(from reader: NodeReader, quote: Bool) -> ActionItem? {
        switch self {
        case .reply:
            return reader.decodeIfPresent(Located<String>.self, forKey: rawValue)
                .map { ActionItem(action: .reply(text: $0, quote: quote), mark: $0.mark) }
        case .send:
            return reader.decodeIfPresent(SendAction.self, forKey: rawValue)
                .map { ActionItem(action: .send($0, quote: quote), mark: $0.mark) }
        case .react:
            return reader.decodeIfPresent(Located<String>.self, forKey: rawValue).map { ActionItem(action: .react($0), mark: $0.mark) }
        case .unreact:
            return reader.decodeIfPresent(Located<String>.self, forKey: rawValue).map { ActionItem(action: .unreact($0), mark: $0.mark) }
        case .broadcast:
            return reader.decodeIfPresent(Located<BroadcastAction>.self, forKey: rawValue)
                .map { ActionItem(action: .broadcast($0.value), mark: $0.mark) }
        case .goto:
            return reader.decodeIfPresent(Located<String>.self, forKey: rawValue).map { ActionItem(action: .goto($0), mark: $0.mark) }
        case .set:
            return reader.decodeIfPresent(Located<OrderedMap<Located<String>>>.self, forKey: rawValue)
                .map { ActionItem(action: .set($0.value), mark: $0.mark) }
        case .handoff:
            return reader.decodeIfPresent(Located<HandoffAction>.self, forKey: rawValue)
                .map { ActionItem(action: .handoff($0.value), mark: $0.mark) }
        case .wait:
            return reader.decodeIfPresent(Located<String>.self, forKey: rawValue).map { ActionItem(action: .wait($0), mark: $0.mark) }
        }
    }

    /// Every action key, for messages (`reply, send, …`).
    static let list = allCases.map(\.rawValue).joined(separator: ", ")
}
