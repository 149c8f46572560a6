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
    }

    /// Staffed queues by name (a queue not listed is manual, with no timers).
    var queues: [String: Queue] = [:]
    /// Where a customer goes when their ticket is resolved (a survey), if anywhere.
    var onResolve: StepPosition?

    /// The rules of `queue` (the defaults for a queue not listed).
    func queue(_ name: String) -> Queue {
        queues[name] ?? Queue(agents: nil, assignment: .manual)
    }

    /// Compiles `policy` (validated), resolving `on_resolve` with `resolve`.
    init(_ policy: HandoffPolicy?, resolve: (Located<String>) throws(BotError) -> StepTarget) throws(BotError) {
        guard let policy else { return }
        for entry in policy.queues.entries {
            let queue = entry.value
            queues[entry.name] = Queue(agents: queue.agents?.map(\.value), assignment: queue.assignment,
                                       remindAfter: queue.remindAfter.flatMap { try? DurationFormat.parse($0.value) },
                                       escalateAfter: queue.escalateAfter.flatMap { try? DurationFormat.parse($0.value) },
                                       escalateTo: queue.escalateTo?.value)
        }
        if let target = policy.onResolve, case .step(let flow, let step) = try resolve(target) {
            onResolve = StepPosition(flow: flow, step: step)
        }
    }

    init() {}
}
