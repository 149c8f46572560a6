import YAMLCoding

extension BotValidator {
    /// `handoff:`: queue names, assignment, durations, escalation targets and `on_resolve`.
    func checkHandoff() {
        guard let handoff = bot.handoff else { return }
        let handedTo = bot.handoffQueues
        let escalatedTo = Set(handoff.queues.entries.compactMap { $0.value.escalateTo?.value })
        for entry in handoff.queues.entries {
            checkName(Located(value: entry.name, mark: entry.keyMark), what: "queue name")
            let queue = entry.value
            if !handedTo.contains(entry.name) && !escalatedTo.contains(entry.name) {
                fail(entry.keyMark, "queue '\(entry.name)' is staffed here but nothing hands off or escalates to it"
                     + (handedTo.isEmpty ? " (this bot has no 'handoff' action)" : " (queues handed off to: \(handedTo.sorted().joined(separator: ", ")))"))
            }
            for agent in queue.agents ?? [] where agent.value.isEmpty { fail(agent.mark, "empty user id in 'agents'") }
            if let agents = queue.agents, agents.isEmpty { fail(queue.mark, "'agents' is empty: leave it out to let every member of the queue's channel work it") }
            if let assign = queue.assign, QueuePolicy.Assignment(rawValue: assign.value) == nil {
                fail(assign.mark, "invalid assign '\(assign.value)': expected "
                     + QueuePolicy.Assignment.allCases.map(\.rawValue).joined(separator: ", "))
            }
            if let remind = queue.remindAfter { checkDuration(remind) }
            if let escalate = queue.escalateAfter { checkDuration(escalate) }
            switch (queue.escalateAfter, queue.escalateTo) {
            case (let after?, nil): fail(after.mark, "'escalate_after' needs 'escalate_to': the queue the ticket moves to")
            case (nil, let to?): fail(to.mark, "'escalate_to' needs 'escalate_after': how long a ticket waits untaken first")
            default: break
            }
            if let to = queue.escalateTo {
                checkName(to, what: "queue name")
                if to.value == entry.name { fail(to.mark, "queue '\(entry.name)' escalates to itself") }
            }
            if let hours = queue.hours { found.errors += hours.errors(in: source) }
            if let closed = queue.closed {
                if queue.hours == nil { fail(closed.mark, "'closed' runs when a hand-off arrives out of hours: it needs 'hours' in the same queue") }
                var scope = TemplateScope(place: .text("the 'closed' actions of queue '\(entry.name)'"))
                scope.queueOpens = true
                checkActions(closed.value, scope: scope)
            }
            if let remind = queue.remindAfter?.value, let escalate = queue.escalateAfter,
               let reminded = try? DurationFormat.parse(remind), let escalated = try? DurationFormat.parse(escalate.value), reminded >= escalated {
                fail(escalate.mark, "'escalate_after' (\(escalate.value)) must be longer than 'remind_after' (\(remind)): the reminder comes first")
            }
        }
        if let target = handoff.onResolve {
            if target.value == "end" {
                fail(target.mark, "'on_resolve' names the step the customer starts in: expected FLOW.STEP or a flow name, not 'end'")
            } else {
                checkStepTarget(target, key: "on_resolve", flow: nil)
            }
        }
    }
}

extension BotDefinition {
    /// The queues this bot's `handoff:` actions name, wherever they are.
    var handoffQueues: Set<String> {
        Set(allActionItems.compactMap { item in
            if case .handoff(let handoff) = item.action { return handoff.queue.value }
            return nil
        })
    }
}
