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
        var name: String
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
        precondition(kind != .histogram, "a collected family is a counter or a gauge")
        MetricNames.check(name: name, labels: labels)
        add(Entry(name: name) { text in
            text += Self.header(name: name, help: help, kind: kind)
            for sample in await collect().sorted(by: { $0.labels.lexicographicallyPrecedes($1.labels) }) {
                text += "\(name)\(MetricText.labels(labels, sample.labels)) \(MetricText.number(sample.value))\n"
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
        add(Entry(name: family.name) { text in
            text += Self.header(name: family.name, help: family.help, kind: Child.kind)
            for (labels, child) in family.snapshot() {
                child.write(name: family.name, labels: MetricText.labels(family.labelNames, labels), into: &text)
            }
        })
        return family
    }

    private func add(_ entry: Entry) {
        entries.withLock { entries in
            precondition(!entries.contains { $0.name == entry.name }, "metric \(entry.name) registered twice")
            entries.append(entry)
        }
    }

    private static func header(name: String, help: String, kind: MetricKind) -> String {
        "# HELP \(name) \(MetricText.escape(help, quotes: false))\n# TYPE \(name) \(kind.rawValue)\n"
    }
}
