import Foundation
import ParleyCore

/// Runs compiled actions without I/O: renders templates, follows `goto` / `next` through
/// flows, and collects effects and the new conversation state.
struct Planner {
    /// Steps one plan may enter: a flow that loops through steps without an `ask` would
    /// otherwise never end.
    static let maxSteps = 64

    let bot: CompiledBot
    var state: ConversationState
    let now: Date
    var context = TemplateContext()
    var effects: [Effect] = []
    var route = ""
    /// The `wait`s planned so far: an `ask` after them is asked that much later, so its
    /// timeout counts from then, not from now.
    private var waited: Duration = .zero

    init(bot: CompiledBot, state: ConversationState, now: Date) {
        self.bot = bot
        self.state = state
        self.now = now
    }

    /// Runs `actions`; a `goto` transfers control (the rest of the list is skipped). With
    /// `leaveFlowAtEnd`, a list that ends without a `goto` leaves the flow.
    mutating func run(_ actions: [CompiledAction], flow: String?, leaveFlowAtEnd: Bool = false) {
        if let target = perform(actions) {
            enter(target)
        } else if leaveFlowAtEnd {
            leaveFlow()
        }
    }

    /// Handles the user's answer to the `ask` at `position`.
    mutating func answer(_ text: String, ask: CompiledAsk, step: CompiledStep, at position: StepPosition) {
        var groups: [String: String] = [:]
        if let pattern = ask.match {
            switch pattern.match(text) {
            case .matched(let found):
                groups = found
            case .noMatch:
                retry(ask, at: position)
                return
            case .limitExceeded(let reason):
                effects.append(.log(.warn, "regex gave up on an answer", ["step": position.description, "reason": reason]))
                retry(ask, at: position)
                return
            }
        }
        accept(text, groups: groups, step: step)
    }

    /// Takes `answer` for the waiting `ask` of `step` (a text that matched, with its named
    /// `groups`, or a reaction the ask lists): saved under `save`, then the flow goes on.
    mutating func accept(_ answer: String, groups: [String: String] = [:], step: CompiledStep) {
        if let save = step.ask?.save { state.vars[save] = answer }
        for (name, value) in groups { state.vars[name] = value }
        state.waiting = nil
        state.deadline = nil
        if let next = step.next { enter(next) } else { leaveFlow() }
    }

    /// Asks again; the timeout starts over, as the user is answering (the earlier timer
    /// finds a different deadline and is stale).
    private mutating func retry(_ ask: CompiledAsk, at position: StepPosition) {
        if let retry = ask.retry { effects.append(.send(.text(render(retry.render)), to: nil, quote: false)) }
        if let timeout = ask.timeout {
            let deadline = deadline(after: timeout)
            state.deadline = deadline
            effects.append(.armTimeout(position, deadline))
        }
    }

    /// Enters a step and follows the flow until an `ask` waits, the flow ends, or the step
    /// budget runs out.
    mutating func enter(_ first: StepTarget) {
        var target = first
        for _ in 0..<Self.maxSteps {
            guard case .step(let flow, let name) = target, let step = bot.step(flow, name) else {
                leaveFlow()
                return
            }
            if let jump = perform(step.actions) {
                target = jump
                continue
            }
            if let ask = step.ask {
                let position = StepPosition(flow: flow, step: name)
                state.waiting = position
                state.deadline = ask.timeout.map(deadline(after:))
                if let deadline = state.deadline { effects.append(.armTimeout(position, deadline)) }
                return
            }
            guard let next = step.next else {
                leaveFlow()
                return
            }
            target = next
        }
        effects.append(.log(.warn, "flow stopped: more than \(Self.maxSteps) steps without waiting for the user", [:]))
        leaveFlow()
    }

    /// When an `ask` planned now times out: `timeout` after the waits before it.
    private func deadline(after timeout: Duration) -> Date {
        now.addingTimeInterval((waited + timeout).timeInterval)
    }

    private mutating func leaveFlow() {
        state.waiting = nil
        state.deadline = nil
    }

    /// Performs actions in order; returns the target of a `goto` (which ends the list).
    private mutating func perform(_ actions: [CompiledAction]) -> StepTarget? {
        for action in actions {
            switch action {
            case .reply(let template, let quote):
                effects.append(.send(.text(render(template.render)), to: nil, quote: quote))
            case .send(let send, let quote):
                let to = send.to.map { render($0.render) }
                effects.append(.send(content(send), to: to, quote: quote))
            case .react(let emoji):
                effects.append(.react(emoji))
            case .unreact(let emoji):
                effects.append(.unreact(emoji))
            case .goto(let target):
                return target
            case .set(let values):
                for value in values { state.vars[value.name] = render(value.template.render) }
            case .handoff(let queue, let note):
                effects.append(.handoff(queue: queue, note: note.map { render($0.render) } ?? ""))
            case .wait(let duration):
                waited += duration
                effects.append(.wait(duration))
            case .broadcast(let targets, let send):
                var items: [BroadcastItem] = []
                for target in targets {
                    context.recipient = Channel(target: target).map { InboundUser(id: $0.id, name: $0.id) }
                    items.append(BroadcastItem(target: target, content: content(send)))
                }
                context.recipient = nil
                effects.append(.broadcast(items))
            }
        }
        return nil
    }

    private func content(_ send: CompiledSend) -> OutgoingContent {
        guard let card = send.card else { return .text(send.text.map { render($0.render) } ?? "") }
        var fields: [String: String] = [:]
        if let text = send.text { fields["text"] = render(text.render) }
        for field in send.fields { fields[field.name] = render(field.template.render) }
        return .card(name: card, fields: fields)
    }

    /// Renders with this plan's variables (values are inserted as text, never re-parsed).
    private func render(_ body: ((String) -> String?) -> String) -> String {
        body { path in context.value(of: path, bot: bot, vars: state.vars) }
    }
}

/// The values templates see besides the conversation's variables.
struct TemplateContext: Sendable {
    var user: InboundUser?
    var messageText: String?
    var args: [String: String] = [:]
    var match: [String: String] = [:]
    /// Inside a broadcast's `send`: who it is for.
    var recipient: InboundUser?
    /// In a queue's `closed` actions: when it opens (`{{queue.opens}}`).
    var queueOpens: String?

    func value(of path: String, bot: CompiledBot, vars: [String: String]) -> String? {
        guard let dot = path.firstIndex(of: ".") else { return path == "help" ? bot.helpText : nil }
        let leaf = String(path[path.index(after: dot)...])
        switch path[..<dot] {
        case "user": return leaf == "id" ? user?.id : leaf == "name" ? user?.name : nil
        case "bot": return leaf == "id" ? bot.id : leaf == "name" ? bot.name : nil
        case "message": return leaf == "text" ? messageText : nil
        case "args": return args[leaf]
        case "match": return match[leaf]
        case "vars": return vars[leaf]
        case "recipient": return leaf == "id" ? recipient?.id : leaf == "name" ? recipient?.name : nil
        case "queue": return leaf == "opens" ? queueOpens : nil
        default: return nil
        }
    }
}
