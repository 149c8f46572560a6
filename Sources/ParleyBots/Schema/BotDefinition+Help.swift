import YAMLCoding

extension BotDefinition {
    /// `{{help}}`: one line per command in file order — the prefix and name, its args in angle
    /// brackets, and its description (`/card <user> — Send someone's business card`).
    public var helpText: String {
        commands.entries.map { entry in
            var line = commandPrefix + entry.name
            for arg in entry.value.args { line += " <\(arg.value)>" }
            if let description = entry.value.description?.value { line += " — " + description }
            return line
        }.joined(separator: "\n")
    }

    /// True when the bot has nothing to do: no commands, triggers, flows, schedules, greeting
    /// or fallback (an empty file, for instance).
    public var isEmpty: Bool {
        commands.isEmpty && triggers.isEmpty && flows.isEmpty && schedules.isEmpty && greeting == nil && fallback == nil
    }
}
