import YAMLCoding
import ParleyRegex
import ParleyCore
/// Checks what decoding cannot: references between the parts of a bot file (goto / next
/// targets, cards, template variables, regexes, cron, time zones, durations, targets). Every
/// error is positioned at the offending value and says what is expected.
public struct BotValidator {
    let source: SourceFile
    let bot: BotDefinition
    /// Variables any part of the bot sets (`ask.save`, `set:`, named groups of `ask.match`).
    let vars: Set<String>
    /// The fields of every card a `send:` may name (built-in and the bot's own), looked up
    /// once per bot instead of once per `send:`.
    let cardFields: [String: [String]]
    let found = FoundErrors()
    let patterns: CompiledPatterns

    /// Validates `bot`, read from `source`; returns every problem found (empty when valid).
    public static func validate(_ bot: BotDefinition, source: SourceFile) -> [YAMLError] {
        var cardFields = BuiltInCard.named.mapValues(\.fields)
        for card in bot.cards.entries where cardFields[card.name] == nil { cardFields[card.name] = card.value.fields.map(\.value) }
        let patterns = CompiledPatterns()
        let validator = BotValidator(source: source, bot: bot, vars: BotValidator.collectVars(bot, patterns: patterns), cardFields: cardFields,
                                     patterns: patterns)
        validator.run()
        return validator.found.errors.sortedByPosition()
    }

    func fail(_ mark: Mark, _ message: String) {
        found.errors.append(source.error(at: mark, message))
    }

    func report(_ issues: [SchemaIssue]) {
        for issue in issues { fail(issue.mark, issue.message) }
    }

    private func run() {
        if bot.isEmpty {
            fail(Mark(line: 1, column: 1), "the bot does nothing: expected at least one of commands, triggers, flows, schedules, greeting or fallback")
        }
        if let id = bot.id { checkName(id, what: "bot id") }
        if let prefix = bot.prefix, prefix.value.isEmpty || prefix.value.contains(" ") {
            fail(prefix.mark, "invalid prefix '\(prefix.value)': expected a non-empty prefix without spaces, like \"/\" or \"!\"")
        }
        for channel in bot.allow?.channels ?? [] { checkTarget(channel) }
        for user in bot.allow?.users ?? [] where user.value.isEmpty {
            fail(user.mark, "empty user id in 'allow.users'")
        }
        checkCards()
        if let greeting = bot.greeting {
            checkActions(greeting.value, scope: TemplateScope(place: "greeting"))
        }
        checkCommands()
        checkTriggers()
        checkFlows()
        if let fallback = bot.fallback {
            checkActions(fallback.value, scope: TemplateScope(place: "fallback"))
        }
        checkSchedules()
        checkHandoff()
        checkAudiences()
    }

    // MARK: - Commands and triggers

    private func checkCommands() {
        var seen: [String: String] = [:]   // name or alias → command
        seen.reserveCapacity(bot.commands.entries.count * 2)
        for entry in bot.commands.entries { checkCommand(entry, seen: &seen) }
    }

    /// One command. Its fields are read through `entry`, not bound to locals (each binding would
    /// be one more copy).
    private func checkCommand(_ entry: OrderedMap<Command>.Entry, seen: inout [String: String]) {
        report(entry.value.issues)
        if !BotValidator.isName(entry.name) {
            fail(entry.keyMark, "invalid command name '\(entry.name)': expected letters, digits, '_' or '-'")
        }
        // One hashing per name: `updateValue` records the name and returns who had it before.
        if let other = seen.updateValue(entry.name, forKey: entry.name) {
            fail(entry.keyMark, "command '\(entry.name)' is already an alias of command '\(other)'")
        }
        for alias in entry.value.aliases {
            checkName(alias, what: "alias")
            if let other = seen.updateValue(entry.name, forKey: alias.value) {
                fail(alias.mark, "alias '\(alias.value)' of command '\(entry.name)' is already taken by command '\(other)'")
            }
        }
        let args = entry.value.args
        for (index, arg) in args.enumerated() {
            checkName(arg, what: "arg name")
            // A command has a few args: comparing with the earlier ones beats building a set.
            if args[..<index].contains(where: { $0.value == arg.value }) {
                fail(arg.mark, "duplicate arg '\(arg.value)' in command '\(entry.name)'")
            }
        }
        if let description = entry.value.description, description.value.containsByte(UInt8(ascii: "\n")) {
            fail(description.mark, "the description of command '\(entry.name)' must be one line (it is a line of {{help}})")
        }
        if entry.value.actions.isEmpty && entry.value.issues.isEmpty {
            fail(entry.keyMark, "command '\(entry.name)' does nothing: add an action (\(Action.Key.list)) or a 'do:' list")
        }
        let scope = TemplateScope(place: .command(entry.name), args: args)
        checkActions(entry.value.actions, scope: scope)
    }

    private func checkTriggers() {
        for (index, trigger) in bot.triggers.enumerated() {
            report(trigger.issues)
            let place = "trigger \(index + 1)"
            var groups: [String]? = nil
            let tests = [("match", trigger.match), ("contains", trigger.contains), ("reaction", trigger.reaction)]
                .compactMap { key, value in value.map { (key, $0) } }
            if tests.count > 1 {
                // At the second key: the first one says what the trigger is.
                fail(tests[1].1.mark, "\(place) has both '\(tests[0].0)' and '\(tests[1].0)': use one of them")
            }
            if let match = trigger.match {
                groups = compileRegex(match)?.namedGroups.map(\.name) ?? []
            }
            if let contains = trigger.contains, contains.value.isEmpty {
                fail(contains.mark, "'contains' of \(place) is empty: expected some text to look for")
            }
            if let reaction = trigger.reaction { checkEmoji(reaction, what: "reaction") }
            if tests.isEmpty {
                fail(trigger.mark, "\(place) needs 'match' (a regex), 'contains' (a text) or 'reaction' (an emoji)")
            }
            if trigger.actions.isEmpty && trigger.issues.isEmpty {
                fail(trigger.mark, "\(place) does nothing: add an action (\(Action.Key.list)) or a 'do:' list")
            }
            checkActions(trigger.actions, scope: TemplateScope(place: .text(place), matchGroups: groups))
        }
    }

    /// One emoji (`what` names the value in the message: a reaction).
    func checkEmoji(_ emoji: Located<String>, what: String) {
        if !ValueCheck.isEmoji(emoji.value) {
            fail(emoji.mark, "invalid \(what) '\(emoji.value)': expected one emoji, like \"👍\"")
        }
    }

    // MARK: - Variables

    private static func collectVars(_ bot: BotDefinition, patterns: CompiledPatterns) -> Set<String> {
        var names: Set<String> = []
        func collect(_ actions: [ActionItem]) {
            for item in actions {
                if case .set(let values) = item.action { names.formUnion(values.names) }
            }
        }
        collect(bot.greeting?.value.items ?? [])
        collect(bot.fallback?.value.items ?? [])
        // Only each command's actions, read through the buffer (passing an entry copies it all).
        bot.commands.entries.withUnsafeBufferPointer { entries in
            for index in entries.indices { collect(entries[index].value.actions) }
        }
        bot.triggers.forEach { collect($0.actions) }
        bot.schedules.forEach { collect($0.actions?.value.items ?? []) }
        for flow in bot.flows.entries {
            for step in flow.value.entries {
                collect(step.value.actions)
                collect(step.value.ask?.onTimeout?.value.items ?? [])
                if let save = step.value.ask?.save { names.insert(save.value) }
                if let match = step.value.ask?.match, let pattern = patterns.pattern(match.value) {
                    names.formUnion(pattern.namedGroups.map(\.name))
                }
            }
        }
        return names
    }
}
