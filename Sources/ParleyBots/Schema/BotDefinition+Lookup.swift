extension BotDefinition {
    /// Resolves a `goto:` / `next:` target as validation does: `end`, `FLOW.STEP`, a bare step
    /// of `flow` (the flow the action is in), or a bare flow name (its first step). Nil when
    /// the target names nothing.
    public func stepTarget(_ target: String, inFlow flow: String?) -> StepTarget? {
        if target == "end" { return .end }
        let parts = target.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2 {
            return flows[parts[0]]?[parts[1]] != nil ? .step(flow: parts[0], step: parts[1]) : nil
        }
        guard parts.count == 1 else { return nil }
        if let flow, flows[flow]?[target] != nil { return .step(flow: flow, step: target) }
        if let first = flows[target]?.entries.first { return .step(flow: target, step: first.name) }
        return nil
    }

    /// The command a user typed, by name or alias (without the prefix).
    public func command(named name: String) -> (name: String, command: Command)? {
        for entry in commands.entries where entry.name == name || entry.value.aliases.contains(where: { $0.value == name }) {
            return (entry.name, entry.value)
        }
        return nil
    }

    /// The fields of a built-in card or one of this bot's `cards:`; nil for an unknown card.
    public func fields(ofCard name: String) -> [String]? {
        if let fields = BuiltInCards.fields[name] { return fields }
        return cards[name]?.fields.map(\.value)
    }
}
