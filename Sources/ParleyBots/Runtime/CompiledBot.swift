import ParleyCore
import ParleyRegex
import YAMLCoding

/// A bot definition made ready to run: templates and regexes compiled, commands indexed by
/// name and alias, step targets resolved. Built once per bot at start-up.
public struct CompiledBot: Sendable {
    /// The bot's id (its user id on the transport).
    public let id: String
    /// Display name (`{{bot.name}}`).
    public let name: String
    /// Avatar URL, if any.
    public let avatar: String?
    /// Command prefix.
    public let prefix: String
    /// `{{help}}`.
    public let helpText: String
    /// The custom card types of this bot.
    public let cards: [String: CardDefinition]
    /// Every handoff queue the bot uses: agents in `group:<queue>` may run ticket commands.
    public let queues: Set<String>
    let allowUsers: Set<String>?
    let allowChannels: Set<String>?
    let greeting: [CompiledAction]
    let commands: [String: CompiledCommand]
    let triggers: [CompiledTrigger]
    let flows: [String: [String: CompiledStep]]
    let fallback: [CompiledAction]
    /// Schedules with a `broadcast:`, for the host's cron scheduler.
    let broadcastSchedules: [BroadcastSchedule]
    /// How the queues are staffed (`handoff:`).
    let handoff: HandoffRules
    /// Opt-in lists for broadcasts (`audiences:`), in file order.
    let audiences: [CompiledAudience]

    /// The bot's own profile as user `userID` (its id on the transport: a Matrix account's
    /// full id; the bot's id on the embedded hub).
    public func profile(as userID: String) -> Profile { Profile(id: userID, name: name, avatar: avatar) }

    /// How much a person trying the bot gets from it: 2 with a greeting, 1 with commands only,
    /// 0 without either (a bot that only broadcasts). A console opens on the most welcoming.
    public var welcome: Int {
        if !greeting.isEmpty { return 2 }
        return commands.isEmpty ? 0 : 1
    }

    /// Compiles `definition` (which should have passed `BotValidator`). Anything that still
    /// does not compile throws an `BotError` naming the file position.
    public init(id: String, definition: BotDefinition, file: String = "", limits: PatternLimits = .default) throws(BotError) {
        var compiler = ActionCompiler(definition: definition, file: file, limits: limits)
        self.id = id
        name = definition.name?.value ?? id
        avatar = definition.avatar?.value
        prefix = definition.commandPrefix
        helpText = definition.helpText
        allowUsers = definition.allow?.users.map { Set($0.map(\.value)) }
        allowChannels = definition.allow?.channels.map { Set($0.map(\.value)) }
        greeting = try compiler.actions(definition.greeting?.value.items ?? [], flow: nil)
        fallback = try compiler.actions(definition.fallback?.value.items ?? [], flow: nil)
        var commands: [String: CompiledCommand] = [:]
        for entry in definition.commands.entries {
            let args = entry.value.args.map(\.value)
            let usage = "Usage: " + ([prefix + entry.name] + args.map { "<\($0)>" }).joined(separator: " ")
            let command = CompiledCommand(name: entry.name, args: args,
                                          actions: try compiler.actions(entry.value.actions, flow: nil), usage: usage)
            commands[entry.name] = command
            for alias in entry.value.aliases { commands[alias.value] = command }
        }
        self.commands = commands
        var triggers: [CompiledTrigger] = []
        for (index, trigger) in definition.triggers.enumerated() {
            let test: CompiledTrigger.Test
            if let match = trigger.match {
                test = .match(try compiler.pattern(match))
            } else if let contains = trigger.contains {
                test = .contains(contains.value.lowercased())
            } else if let reaction = trigger.reaction {
                test = .reaction(Router.emojiKey(reaction.value))
            } else {
                throw compiler.error(trigger.mark, "a trigger needs 'match', 'contains' or 'reaction'")
            }
            triggers.append(CompiledTrigger(test: test, actions: try compiler.actions(trigger.actions, flow: nil), label: "trigger \(index + 1)"))
        }
        self.triggers = triggers
        var flows: [String: [String: CompiledStep]] = [:]
        for flow in definition.flows.entries {
            var steps: [String: CompiledStep] = [:]
            for step in flow.value.entries {
                steps[step.name] = try compiler.step(step.value, flow: flow.name)
            }
            flows[flow.name] = steps
        }
        self.flows = flows
        var cards: [String: CardDefinition] = [:]
        for card in definition.cards.entries {
            do {
                cards[card.name] = try CardDefinition(
                    name: card.name, typeCode: Int64(card.value.type.value), fields: card.value.fields.map(\.value),
                    fallback: try compiler.template(card.value.fallback))
            } catch let error as ParleyError {
                throw compiler.error(card.keyMark, error.message)
            } catch {
                throw compiler.error(card.keyMark, "\(error)")
            }
        }
        self.cards = cards
        broadcastSchedules = try BroadcastSchedule.compile(definition, bot: id, file: file, compiler: &compiler)
        audiences = try CompiledAudience.compile(definition, file: file, compiler: &compiler)
        let rules = try HandoffRules(definition.handoff, compiler: &compiler)
        handoff = rules
        // A queue tickets escalate to is one of the bot's too: its agents act on them there.
        queues = compiler.queues.union(rules.queues.keys).union(rules.queues.values.compactMap { $0.escalateTo })
    }

    /// The step a target names, if it exists.
    func step(_ flow: String, _ step: String) -> CompiledStep? { flows[flow]?[step] }

    /// Whether `user` in `channel` may talk to the bot. With both lists, either admits;
    /// with none, everyone may.
    func allows(user: String, channel: Channel) -> Bool {
        switch (allowUsers, allowChannels) {
        case (nil, nil): return true
        case (let users?, nil): return users.contains(user)
        case (nil, let channels?): return channels.contains(channel.target)
        case (let users?, let channels?): return users.contains(user) || channels.contains(channel.target)
        }
    }

    /// The content registry a client of this bot needs: built-ins, tickets, its cards.
    public var registry: ContentRegistry {
        BotContentRegistry.make(cards: Array(cards.values))
    }
}
