import ParleyCore

/// An action of a bot file with its templates parsed once, ready for the `Planner`.
enum CompiledAction: Sendable {
    case reply(Template, quote: Bool)
    case send(CompiledSend, quote: Bool)
    case react(String)
    case unreact(String)
    case goto(StepTarget)
    case set([NamedTemplate])
    case handoff(queue: String, note: Template?)
    case wait(Duration)
    case broadcast(targets: [String], send: CompiledSend)
}

/// A template under a name (a `set:` variable or a card field).
struct NamedTemplate: Sendable {
    var name: String
    var template: Template
}

/// `send:` with parsed templates.
struct CompiledSend: Sendable {
    /// Nil for a text message.
    var card: String?
    var text: Template?
    var fields: [NamedTemplate]
    var to: Template?
}

/// A compiled flow step.
struct CompiledStep: Sendable {
    var actions: [CompiledAction]
    var ask: CompiledAsk?
    var next: StepTarget?
}

/// A compiled `ask:`.
struct CompiledAsk: Sendable {
    var save: String?
    var match: CompiledPattern?
    var retry: Template?
    var timeout: Duration?
    var onTimeout: [CompiledAction]
    /// Emojis whose reaction answers too (`Router.emojiKey` of each).
    var reactions: Set<String> = []
}

/// A compiled command.
struct CompiledCommand: Sendable {
    var name: String
    var args: [String]
    var actions: [CompiledAction]
    /// `Usage: /card <user>`, sent when args are missing.
    var usage: String
}

/// A compiled trigger: a regex or a lowercased substring (on text), or an emoji (on a reaction).
struct CompiledTrigger: Sendable {
    enum Test: Sendable {
        case match(CompiledPattern)
        case contains(String)
        /// `Router.emojiKey` of the emoji.
        case reaction(String)
    }
    var test: Test
    var actions: [CompiledAction]
    /// `trigger N` (1-based), for logs.
    var label: String
}
