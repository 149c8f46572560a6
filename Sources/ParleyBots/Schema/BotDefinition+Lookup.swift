import ParleyCore

extension BotDefinition {
    /// Resolves a `goto:` / `next:` target as validation does: `end`, `FLOW.STEP`, a bare step
    /// of `flow` (the flow the action is in), or a bare flow name (its first step). Nil when
    /// the target names nothing.
    public func stepTarget(_ target: String, inFlow flow: String?) -> StepTarget? {
        if target == "end" { return .end }
        if let dot = target.utf8.firstIndex(of: UInt8(ascii: ".")) {
            // FLOW.STEP: exactly one dot (empty names allowed, as a split would give them).
            let flowName = String(target[..<dot]), stepName = String(target[target.utf8.index(after: dot)...])
            guard !stepName.utf8.contains(UInt8(ascii: ".")) else { return nil }
            return hasStep(stepName, inFlow: flowName) ? .step(flow: flowName, step: stepName) : nil
        }
        if let flow, hasStep(target, inFlow: flow) { return .step(flow: flow, step: target) }
        if let first = flows.entries.first(where: { $0.name == target })?.value.entries.first { return .step(flow: target, step: first.name) }
        return nil
    }

    /// Whether flow `flow` has step `step`, looked up in place (`flows[flow]?[step]` would copy
    /// the flow and the step).
    private func hasStep(_ step: String, inFlow flow: String) -> Bool {
        flows.entries.contains { $0.name == flow && $0.value.entries.contains { $0.name == step } }
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
        if let card = BuiltInCard.named[name] { return card.fields }
        return cards[name]?.fields.map(\.value)
    }

    /// The names a `send:` may give as `card`, for messages: the built-ins, then this bot's own.
    public var cardNames: [String] { BuiltInCard.all.map(\.name) + cards.names }
}

extension BotDefinition {
    /// The bot's profile as the file gives it, as user `id` (no name when the file has none).
    public func profile(id: String) -> Profile { Profile(id: id, name: name?.value, avatar: avatar?.value) }
}
