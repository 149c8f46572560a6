import Synchronization

/// The kinds of metric the Prometheus text format (0.0.4) knows, as its `# TYPE` line says them.
public enum MetricKind: String, Sendable {
    case counter, gauge, histogram
}

/// One exposed sample: the label values (in the family's label order) and the value.
public struct MetricSample: Sendable, Equatable {
    /// The values of the family's labels, in the order the family names them.
    public var labels: [String]
    /// The value.
    public var value: Double

    /// A sample.
    public init(_ labels: [String], _ value: Double) {
        self.labels = labels
        self.value = value
    }
}

/// A named family of metrics of one kind, with one child per combination of label values.
/// Children are created on first use and kept (a bot's counter outlives a reload that
/// removes it: Prometheus expects counters not to vanish and reappear from zero).
public final class MetricFamily<Child: MetricChild>: Sendable {
    /// The metric's name (`parley_messages_received_total`).
    public let name: String
    /// The `# HELP` text.
    public let help: String
    /// The label names, in order.
    public let labelNames: [String]
    private let makeChild: @Sendable () -> Child
    private let children = Mutex<[[String]: Child]>([:])

    init(name: String, help: String, labelNames: [String], makeChild: @escaping @Sendable () -> Child) {
        MetricNames.check(name: name, labels: labelNames)
        self.name = name
        self.help = help
        self.labelNames = labelNames
        self.makeChild = makeChild
    }

    /// The child for `values` (one per label, in order), created on first use. Callers on a
    /// hot path keep the child rather than look it up per event.
    public func labels(_ values: String...) -> Child { labels(values) }

    /// The child for `values` (one per label, in order), created on first use.
    public func labels(_ values: [String]) -> Child {
        precondition(values.count == labelNames.count, "\(name) has labels \(labelNames), given \(values.count) values")
        return children.withLock { children in
            if let child = children[values] { return child }
            let child = makeChild()
            children[values] = child
            return child
        }
    }

    /// Every child with its label values, sorted by them (the exposition is stable).
    func snapshot() -> [(labels: [String], child: Child)] {
        children.withLock { $0.map { (labels: $0.key, child: $0.value) } }
            .sorted { $0.labels.lexicographicallyPrecedes($1.labels) }
    }
}

/// What a family's child is: a counter, a gauge or a histogram.
public protocol MetricChild: AnyObject, Sendable {
    /// The `# TYPE` of a family of these.
    static var kind: MetricKind { get }
    /// Appends this child's sample lines (`name{labels} value`) to `text`.
    func write(name: String, labels: String, into text: inout String)
}
