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

    /// The YAML key of this action.
    public var key: String {
        switch self {
        case .reply: return "reply"
        case .send: return "send"
        case .react: return "react"
        case .unreact: return "unreact"
        case .broadcast: return "broadcast"
        case .goto: return "goto"
        case .set: return "set"
        case .handoff: return "handoff"
        case .wait: return "wait"
        }
    }

    /// Every action key, in the order they are looked for.
    public static let keys = ["reply", "send", "react", "unreact", "broadcast", "goto", "set", "handoff", "wait"]
}
