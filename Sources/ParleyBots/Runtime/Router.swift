import Foundation

/// The person a conversation input comes from.
struct InboundUser: Sendable, Hashable {
    var id: String
    var name: String
}

/// What a conversation reacts to.
enum RouterInput: Sendable {
    /// A text message from a user.
    case message(text: String, from: InboundUser)
    /// The timeout of the `ask` at this position and deadline passed.
    case timeout(StepPosition, Date)
    /// First contact: the greeting (for a user, or for a group the bot joined).
    case greeting(InboundUser?)
    /// The conversation enters a step (`handoff.on_resolve`, once agents are done).
    case enter(StepPosition)
    /// A user reacted with `emoji` to one of the bot's messages in the conversation.
    case reaction(emoji: String, from: InboundUser)
}

/// The decision for an input: a pure function of (bot, conversation state, input, now) →
/// (effects, new state). Order for a message: an audience's unsubscribe word, a flow waiting
/// on `ask`, then commands (an audience's subscribe command first), then triggers, then
/// `fallback`. For a reaction: a flow waiting on an `ask` that lists the emoji in
/// `reactions`, then the `reaction` triggers; nothing else (no fallback).
enum Router {
    /// The route of a reaction nothing answers.
    static let unansweredReaction = "reaction unanswered"

    /// An emoji as reactions are compared: without the emoji presentation selector (U+FE0F),
    /// which some clients add and others leave out (`❤️` and `❤` are one reaction).
    static func emojiKey(_ emoji: String) -> String {
        guard emoji.unicodeScalars.contains("\u{FE0F}") else { return emoji }
        var key = String.UnicodeScalarView()
        key.append(contentsOf: emoji.unicodeScalars.lazy.filter { $0 != "\u{FE0F}" })
        return String(key)
    }

    static func decide(bot: CompiledBot, state: ConversationState, input: RouterInput, now: Date) -> Plan {
        var planner = Planner(bot: bot, state: state, now: now)
        switch input {
        case .greeting(let user):
            planner.route = "greeting"
            planner.context.user = user
            planner.run(bot.greeting, flow: nil)
        case .enter(let position):
            planner.route = "enter \(position)"
            planner.enter(.step(flow: position.flow, step: position.step))
        case .timeout(let position, let deadline):
            guard state.waiting == position, state.deadline == deadline,
                  let ask = bot.step(position.flow, position.step)?.ask else {
                planner.route = "stale timeout"
                break
            }
            planner.route = "timeout \(position)"
            planner.state.waiting = nil
            planner.state.deadline = nil
            planner.run(ask.onTimeout, flow: position.flow, leaveFlowAtEnd: true)
        case .message(let text, let user):
            planner.context.user = user
            planner.context.messageText = text
            // An unsubscribe word always works: before a flow's `ask`, commands and triggers.
            let leaving = bot.unsubscribing(text)
            if let first = leaving.first {
                planner.route = "unsubscribe " + leaving.map(\.name).joined(separator: ",")
                for audience in leaving { planner.effects.append(.audience(audience.name, user: user.id, subscribed: false)) }
                planner.run(first.onUnsubscribe, flow: nil)
            } else if let position = state.waiting, let step = bot.step(position.flow, position.step), let ask = step.ask {
                planner.route = "ask \(position)"
                planner.answer(text, ask: ask, step: step, at: position)
            } else if !routeCommand(text, planner: &planner) && !routeTrigger(text, planner: &planner) {
                planner.route = "fallback"
                planner.run(bot.fallback, flow: nil)
            }
        case .reaction(let emoji, let user):
            // `{{message.text}}` is the emoji, as the user sent it.
            planner.context.user = user
            planner.context.messageText = emoji
            let key = emojiKey(emoji)
            if let position = state.waiting, let step = bot.step(position.flow, position.step), let ask = step.ask,
               ask.reactions.contains(key) {
                planner.route = "ask \(position) (reaction)"
                planner.accept(emoji, step: step)
            } else if let trigger = bot.triggers.first(where: { if case .reaction(key) = $0.test { true } else { false } }) {
                planner.route = trigger.label
                planner.run(trigger.actions, flow: nil)
            } else {
                planner.route = unansweredReaction
            }
        }
        return Plan(effects: planner.effects, state: planner.state, route: planner.route)
    }

    /// `/name args…`: the name or an alias after the prefix; the last arg takes the rest of
    /// the line verbatim. Missing args answer with the usage line.
    private static func routeCommand(_ text: String, planner: inout Planner) -> Bool {
        guard text.hasPrefix(planner.bot.prefix) else { return false }
        let body = text.dropFirst(planner.bot.prefix.count)
        // An ASCII line (the usual command) is split on its bytes, sparing a grapheme break
        // check per character. For ASCII the two agree: the whitespace characters are tab to
        // carriage return and space, and "\r\n", one character, is two whitespace bytes.
        if body.utf8.allSatisfy({ $0 < 0x80 }) {
            return routeCommand(body.utf8, planner: &planner, isWhitespace: isASCIIWhitespace, string: { String(Substring($0)) })
        }
        return routeCommand(body, planner: &planner, isWhitespace: \.isWhitespace, string: { String($0) })
    }

    /// `Character.isWhitespace` for an ASCII byte: tab to carriage return, and space.
    static func isASCIIWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// `routeCommand` on the line after the prefix, as characters or as ASCII bytes.
    private static func routeCommand<Line: BidirectionalCollection>(
        _ body: Line, planner: inout Planner, isWhitespace: (Line.Element) -> Bool, string: (Line) -> String
    ) -> Bool where Line.SubSequence == Line {
        let name = body.prefix { !isWhitespace($0) }
        // Most bots have no audience: their command lines are not turned into a string twice.
        if !name.isEmpty, !planner.bot.audiences.isEmpty, let audience = planner.bot.subscribing(string(name)),
           let user = planner.context.user {
            planner.route = "subscribe \(audience.name)"
            planner.effects.append(.audience(audience.name, user: user.id, subscribed: true))
            planner.run(audience.onSubscribe, flow: nil)
            return true
        }
        guard !name.isEmpty, let command = planner.bot.commands[string(name)] else { return false }
        var rest = body[name.endIndex...]
        var args: [String: String] = [:]
        for (index, arg) in command.args.enumerated() {
            rest = rest.drop(while: isWhitespace)
            if index == command.args.count - 1 {
                // The last arg keeps the rest of the line as typed (inner spaces and all).
                var value = rest
                while let last = value.last, isWhitespace(last) { value = value.dropLast() }
                args[arg] = string(value)
            } else {
                let word = rest.prefix { !isWhitespace($0) }
                args[arg] = string(word)
                rest = rest[word.endIndex...]
            }
            if args[arg]?.isEmpty ?? true {
                planner.route = "usage \(command.name)"
                planner.effects.append(.send(.text(command.usage), to: nil, quote: false))
                return true
            }
        }
        planner.route = "command \(command.name)"
        planner.context.args = args
        planner.run(command.actions, flow: nil)
        return true
    }

    /// Byte search on UTF-8: Foundation's `contains` bridges through NSString and the generic
    /// collection search is slower still. Lowercased UTF-8 matches byte for byte.
    static func contains(_ text: String, _ needle: String) -> Bool {
        var text = text, needle = needle
        return text.withUTF8 { haystack in
            needle.withUTF8 { pattern in
                guard let first = pattern.first else { return true }
                guard haystack.count >= pattern.count else { return false }
                var start = 0
                while start <= haystack.count - pattern.count {
                    if haystack[start] == first {
                        var offset = 1
                        while offset < pattern.count && haystack[start + offset] == pattern[offset] { offset += 1 }
                        if offset == pattern.count { return true }
                    }
                    start += 1
                }
                return false
            }
        }
    }

    private static func routeTrigger(_ text: String, planner: inout Planner) -> Bool {
        var lowered: String?
        for trigger in planner.bot.triggers {
            switch trigger.test {
            case .contains(let needle):
                if lowered == nil { lowered = text.lowercased() }
                guard let lowered, Self.contains(lowered, needle) else { continue }
                planner.route = trigger.label
                planner.run(trigger.actions, flow: nil)
                return true
            case .reaction:
                continue
            case .match(let pattern):
                switch pattern.match(text) {
                case .noMatch:
                    continue
                case .limitExceeded(let reason):
                    planner.effects.append(.log(.warn, "regex gave up on a message", ["trigger": trigger.label, "reason": reason]))
                    continue
                case .matched(let groups):
                    planner.route = trigger.label
                    planner.context.match = groups
                    planner.run(trigger.actions, flow: nil)
                    return true
                }
            }
        }
        return false
    }
}
