import YAMLCoding

/// One test: a name and its steps.
public struct FlowTestCase: Decodable, Sendable {
    /// Shown in reports.
    public var name: Located<String>
    /// Steps in order.
    public var steps: [FlowTestStep]
}
