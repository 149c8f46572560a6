import Synchronization

/// The metrics of one host and their exposition in the Prometheus text format (0.0.4), the
/// answer of `GET /metrics`.
///
/// Two ways to feed it: families of children updated as things happen (`counter`, `gauge`,
/// `histogram`: one atomic add or a short lock per event), and `collected` families whose
/// samples are read from their source at each scrape (an outbox's depth, a job's states):
/// what already lives in a store is asked for, not mirrored.
///
///     let registry = MetricsRegistry()
///     let received = registry.counter("parley_messages_received_total", help: "Messages received.", labels: ["bot"])
///     received.labels("support").increment()
///     let text = await registry.exposition()
public final class MetricsRegistry: Sendable {
    /// The `Content-Type` of `exposition()`.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private struct Entry: Sendable {
        /// The families it writes.
        var names: [String]
        var write: @Sendable (inout String) async -> Void
    }

    private let entries = Mutex<[Entry]>([])

    /// An empty registry.
    public init() {}

    /// A family of counters (`name` should end in `_total`).
    public func counter(_ name: String, help: String, labels: [String] = []) -> MetricFamily<Counter> {
        register(MetricFamily(name: name, help: help, labelNames: labels) { Counter() })
    }

    /// A family of gauges.
    public func gauge(_ name: String, help: String, labels: [String] = []) -> MetricFamily<Gauge> {
        register(MetricFamily(name: name, help: help, labelNames: labels) { Gauge() })
    }

    /// A family of histograms with the upper bounds `buckets` (ascending; `+Inf` is added).
    public func histogram(_ name: String, help: String, labels: [String] = [], buckets: [Double]) -> MetricFamily<Histogram> {
        register(MetricFamily(name: name, help: help, labelNames: labels) { Histogram(bounds: buckets) })
    }

    /// A counter or gauge family whose samples `collect` reads at each scrape (label values in
    /// the order of `labels`). A family with no samples shows its `HELP` and `TYPE` alone.
    public func collected(_ name: String, help: String, kind: MetricKind, labels: [String] = [],
                          collect: @escaping @Sendable () async -> [MetricSample]) {
        collected([CollectedFamily(name, help: help, kind: kind, labels: labels)]) { [await collect()] }
    }

    /// Several counter or gauge families read from one source in one call per scrape
    /// (`collect` returns each family's samples, in the order of `families`): one store query
    /// feeds them all.
    public func collected(_ families: [CollectedFamily], collect: @escaping @Sendable () async -> [[MetricSample]]) {
        for family in families {
            precondition(family.kind != .histogram, "a collected family is a counter or a gauge")
            MetricNames.check(name: family.name, labels: family.labels)
        }
        add(Entry(names: families.map(\.name)) { text in
            let samples = await collect()
            for (index, family) in families.enumerated() {
                text += Self.header(name: family.name, help: family.help, kind: family.kind)
                let own = index < samples.count ? samples[index] : []
                for sample in own.sorted(by: { $0.labels.lexicographicallyPrecedes($1.labels) }) {
                    text += "\(family.name)\(MetricText.labels(family.labels, sample.labels)) \(MetricText.number(sample.value))\n"
                }
            }
        })
    }

    /// Every family, in the order registered, in the text format.
    public func exposition() async -> String {
        let entries = entries.withLock { $0 }
        var text = ""
        for entry in entries { await entry.write(&text) }
        return text
    }

    private func register<Child: MetricChild>(_ family: MetricFamily<Child>) -> MetricFamily<Child> {
        add(Entry(names: [family.name]) { text in
            text += Self.header(name: family.name, help: family.help, kind: Child.kind)
            for (labels, child) in family.snapshot() {
                child.write(name: family.name, labels: MetricText.labels(family.labelNames, labels), into: &text)
            }
        })
        return family
    }

    private func add(_ entry: Entry) {
        entries.withLock { entries in
            for name in entry.names {
                precondition(!entries.contains { $0.names.contains(name) }, "metric \(name) registered twice")
            }
            entries.append(entry)
        }
    }

    private static func header(name: String, help: String, kind: MetricKind) -> String {
        "# HELP \(name) \(MetricText.escape(help, quotes: false))\n# TYPE \(name) \(kind.rawValue)\n"
    }
}

/// A family `MetricsRegistry.collected` reads at each scrape.
public struct CollectedFamily: Sendable {
    public var name: String
    /// The `# HELP` text.
    public var help: String
    /// Counter or gauge.
    public var kind: MetricKind
    /// The label names, in order.
    public var labels: [String]

    /// A family.
    public init(_ name: String, help: String, kind: MetricKind, labels: [String] = []) {
        self.name = name
        self.help = help
        self.kind = kind
        self.labels = labels
    }
}
