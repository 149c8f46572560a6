import YAMLCoding

extension BotDefinition {
    /// Every action of the bot wherever it is written — greeting, commands, triggers, flow
    /// steps and their timeouts, fallback, schedules — in that order.
    public var allActionItems: [ActionItem] {
        var items: [ActionItem] = greeting?.value.items ?? []
        for command in commands.entries { items += command.value.actions }
        for trigger in triggers { items += trigger.actions }
        for flow in flows.entries {
            for step in flow.value.entries {
                items += step.value.actions
                items += step.value.ask?.onTimeout?.value.items ?? []
            }
        }
        items += fallback?.value.items ?? []
        for schedule in schedules {
            if let broadcast = schedule.broadcast {
                items.append(ActionItem(action: .broadcast(broadcast.value), mark: broadcast.mark))
            }
            items += schedule.actions?.value.items ?? []
        }
        for queue in handoff?.queues.entries ?? [] { items += queue.value.closed?.value.items ?? [] }
        for audience in audiences.entries {
            items += (audience.value.onSubscribe?.value.items ?? []) + (audience.value.onUnsubscribe?.value.items ?? [])
        }
        return items
    }

    /// The `to_file` values of all broadcasts and the audiences' `import` files, with their
    /// positions.
    public var recipientFiles: [Located<String>] {
        allActionItems.compactMap { item in
            if case .broadcast(let broadcast) = item.action { return broadcast.toFile }
            return nil
        } + audiences.entries.compactMap(\.value.importFile)
    }
}
