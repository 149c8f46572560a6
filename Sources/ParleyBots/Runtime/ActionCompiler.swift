import ParleyCore
import ParleyRegex
import YAMLCoding

/// Turns the schema's actions into `CompiledAction`s, resolving step targets the way
/// `BotValidator` does, and collects the hand-off queues it sees.
struct ActionCompiler {
    let definition: BotDefinition
    let file: String
    let limits: PatternLimits
    var queues: Set<String> = []

    init(definition: BotDefinition, file: String, limits: PatternLimits) {
        self.definition = definition
        self.file = file
        self.limits = limits
    }

    func error(_ mark: Mark, _ message: String) -> BotError {
        BotError(file.isEmpty ? "\(mark): \(message)" : "\(file):\(mark): \(message)")
    }

    func template(_ text: Located<String>) throws(BotError) -> Template {
        do {
            return try Template(text.value)
        } catch {
            throw self.error(text.mark, "invalid template: \(error.message)")
        }
    }

    func pattern(_ text: Located<String>) throws(BotError) -> CompiledPattern {
        do {
            return CompiledPattern(pattern: try Pattern(text.value, limits: limits))
        } catch {
            throw self.error(text.mark, error.description)
        }
    }

    func target(_ text: Located<String>, flow: String?) throws(BotError) -> StepTarget {
        // One resolution rule for checking and running: the definition's own.
        guard let target = definition.stepTarget(text.value, inFlow: flow) else {
            throw error(text.mark, "unknown step '\(text.value)'")
        }
        return target
    }

    mutating func actions(_ items: [ActionItem], flow: String?) throws(BotError) -> [CompiledAction] {
        var result: [CompiledAction] = []
        for item in items { result.append(try action(item, flow: flow)) }
        return result
    }

    mutating func action(_ item: ActionItem, flow: String?) throws(BotError) -> CompiledAction {
        switch item.action {
        case .reply(let text, let quote):
            return .reply(try template(text), quote: quote)
        case .send(let send, let quote):
            return .send(try self.send(send), quote: quote)
        case .react(let emoji):
            return .react(emoji.value)
        case .unreact(let emoji):
            return .unreact(emoji.value)
        case .goto(let text):
            return .goto(try target(text, flow: flow))
        case .set(let values):
            var named: [NamedTemplate] = []
            for entry in values.entries { named.append(NamedTemplate(name: entry.name, template: try template(entry.value))) }
            return .set(named)
        case .handoff(let handoff):
            queues.insert(handoff.queue.value)
            return .handoff(queue: handoff.queue.value, note: try handoff.note.map { (note) throws(BotError) in try template(note) })
        case .wait(let text):
            do {
                return .wait(try DurationFormat.parse(text.value))
            } catch {
                throw self.error(text.mark, error.message)
            }
        case .broadcast(let broadcast):
            guard let targets = broadcast.to else {
                throw error(item.mark, "'to_file' broadcasts are run by the scheduler, not as a reply action")
            }
            return .broadcast(targets: targets.map(\.value), send: try send(broadcast.send))
        }
    }

    func send(_ send: SendAction) throws(BotError) -> CompiledSend {
        var fields: [NamedTemplate] = []
        for entry in send.fields.entries { fields.append(NamedTemplate(name: entry.name, template: try template(entry.value))) }
        return CompiledSend(card: send.card?.value, text: try send.text.map { (text) throws(BotError) in try template(text) },
                            fields: fields, to: try send.to.map { (to) throws(BotError) in try template(to) })
    }

    mutating func step(_ step: Step, flow: String) throws(BotError) -> CompiledStep {
        var ask: CompiledAsk?
        if let source = step.ask {
            var timeout: Duration?
            if let text = source.timeout {
                do { timeout = try DurationFormat.parse(text.value) } catch { throw self.error(text.mark, error.message) }
            }
            ask = CompiledAsk(save: source.save?.value,
                              match: try source.match.map { (match) throws(BotError) in try pattern(match) },
                              retry: try source.retry.map { (retry) throws(BotError) in try template(retry) },
                              timeout: timeout,
                              onTimeout: try actions(source.onTimeout?.value.items ?? [], flow: flow),
                              reactions: Set((source.reactions?.value ?? []).map { Router.emojiKey($0.value) }))
        }
        return CompiledStep(actions: try actions(step.actions, flow: flow), ask: ask,
                            next: try step.next.map { (next) throws(BotError) in try target(next, flow: flow) })
    }
}
