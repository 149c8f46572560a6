import Foundation
import YAMLCoding

/// `handoff:` compiled: each staffed queue's rules and the step a resolved customer starts in.
struct HandoffRules: Sendable {
    /// One queue's staffing.
    struct Queue: Sendable {
        /// Who works it; nil: every member of its channel.
        var agents: [String]?
        var assignment: QueuePolicy.Assignment
        var remindAfter: Duration?
        var escalateAfter: Duration?
        var escalateTo: String?
        /// When agents work it; nil: always.
        var hours: OpeningHours?
        /// Run for the customer when a hand-off arrives out of hours.
        var closed: [CompiledAction] = []
    }

    /// Staffed queues by name (a queue not listed is manual, with no timers).
    var queues: [String: Queue] = [:]
    /// Where a customer goes when their ticket is resolved (a survey), if anywhere.
    var onResolve: StepPosition?

    /// The rules of `queue` (the defaults for a queue not listed).
    func queue(_ name: String) -> Queue {
        queues[name] ?? Queue(agents: nil, assignment: .manual)
    }

    /// Compiles `policy` (validated) with the bot's action compiler.
    init(_ policy: HandoffPolicy?, compiler: inout ActionCompiler) throws(BotError) {
        guard let policy else { return }
        for entry in policy.queues.entries {
            let queue = entry.value
            var hours: OpeningHours?
            if let spec = queue.hours {
                do { hours = try OpeningHours(spec: spec) } catch { throw compiler.error(spec.mark, error.message) }
            }
            queues[entry.name] = Queue(agents: queue.agents?.map(\.value), assignment: queue.assignment,
                                       remindAfter: queue.remindAfter.flatMap { try? DurationFormat.parse($0.value) },
                                       escalateAfter: queue.escalateAfter.flatMap { try? DurationFormat.parse($0.value) },
                                       escalateTo: queue.escalateTo?.value, hours: hours,
                                       closed: try compiler.actions(queue.closed?.value.items ?? [], flow: nil))
        }
        if let target = policy.onResolve, case .step(let flow, let step) = try compiler.target(target, flow: nil) {
            onResolve = StepPosition(flow: flow, step: step)
        }
    }

    init() {}
}
