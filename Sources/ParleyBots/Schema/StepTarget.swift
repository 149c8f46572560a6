/// Where a `goto:` or `next:` leads.
public enum StepTarget: Sendable, Hashable {
    /// `end`: the conversation leaves its flow.
    case end
    /// A step of a flow.
    case step(flow: String, step: String)
}
