import YAMLCoding
extension BotValidator {
    /// Flows: step names, `ask`, `next` and `goto` targets.
    func checkFlows() {
        for flow in bot.flows.entries {
            if !BotValidator.isName(flow.name) || flow.name == "end" {
                fail(flow.keyMark, "invalid flow name '\(flow.name)': expected letters, digits, '_' or '-' (and not 'end')")
            }
            if flow.value.isEmpty { fail(flow.keyMark, "flow '\(flow.name)' has no steps") }
            for step in flow.value.entries {
                let place = "flow step '\(flow.name).\(step.name)'"
                if !BotValidator.isName(step.name) || step.name == "end" {
                    fail(step.keyMark, "invalid step name '\(step.name)': expected letters, digits, '_' or '-' (and not 'end')")
                }
                let value = step.value
                report(value.issues)
                let scope = TemplateScope(place: .text(place), flow: flow.name)
                checkActions(value.actions, scope: scope)
                if let ask = value.ask { checkAsk(ask, scope: scope) }
                if let next = value.next { checkStepTarget(next, key: "next", flow: flow.name) }
                if value.actions.isEmpty && value.ask == nil && value.next == nil && value.issues.isEmpty {
                    fail(step.keyMark, "\(place) does nothing: add actions, 'ask' or 'next'")
                }
            }
        }
    }

    private func checkAsk(_ ask: Ask, scope: TemplateScope) {
        if let save = ask.save { checkName(save, what: "variable name") }
        if let match = ask.match { _ = compileRegex(match) }
        if let retry = ask.retry { checkTemplate(retry, scope: scope) }
        if let timeout = ask.timeout { checkDuration(timeout) }
        if let onTimeout = ask.onTimeout {
            if ask.timeout == nil {
                fail(onTimeout.mark, "'on_timeout' needs a 'timeout' in the same 'ask'")
            }
            checkActions(onTimeout.value, scope: scope)
        }
        if let reactions = ask.reactions {
            if reactions.value.isEmpty {
                fail(reactions.mark, "'reactions' is empty: expected emojis that answer the question, like [\"👍\", \"👎\"]")
            }
            for (index, emoji) in reactions.value.enumerated() {
                checkEmoji(emoji, what: "reaction")
                if reactions.value[..<index].contains(where: { $0.value == emoji.value }) {
                    fail(emoji.mark, "duplicate reaction '\(emoji.value)' in 'reactions'")
                }
            }
        }
        if ask.retry != nil && ask.match == nil, let retry = ask.retry {
            fail(retry.mark, "'retry' is sent when the answer does not match, so it needs a 'match' regex in the same 'ask'")
        }
    }

    /// A `next:` or `goto:` target: `end`, `FLOW.STEP`, a bare step of the current flow, or
    /// a bare flow name (its first step).
    func checkStepTarget(_ target: Located<String>, key: String, flow: String?) {
        if bot.stepTarget(target.value, inFlow: flow) != nil { return }
        let parts = target.value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2, let steps = bot.flows[parts[0]] {
            fail(target.mark, "unknown \(key) target '\(target.value)': flow '\(parts[0])' has no step '\(parts[1])' (its steps: \(steps.names.joined(separator: ", ")))")
            return
        }
        var expected = "expected 'end', FLOW.STEP"
        if flow != nil { expected += ", a step of this flow" }
        expected += " or a flow name"
        let flows = bot.flows.names
        fail(target.mark, "unknown \(key) target '\(target.value)': \(expected)"
            + (flows.isEmpty ? " (this bot has no flows)" : " (flows: \(flows.joined(separator: ", ")))"))
    }
}
