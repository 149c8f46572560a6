import Synchronization

/// A count that only goes up (`_total`): one atomic add per event, no lock.
public final class Counter: MetricChild {
    public static let kind = MetricKind.counter
    private let count = Atomic<UInt64>(0)

    init() {}

    /// Adds `amount` (1 unless given).
    public func increment(by amount: UInt64 = 1) { count.add(amount, ordering: .relaxed) }

    /// The count so far.
    public var value: UInt64 { count.load(ordering: .relaxed) }

    public func write(name: String, labels: String, into text: inout String) {
        text += "\(name)\(labels) \(value)\n"
    }
}

/// A value that goes up and down (a depth, an age). Kept as the bits of a `Double` in one
/// atomic word, so setting it takes no lock.
public final class Gauge: MetricChild {
    public static let kind = MetricKind.gauge
    private let bits = Atomic<UInt64>(0.0.bitPattern)

    init() {}

    /// Sets the value.
    public func set(_ value: Double) { bits.store(value.bitPattern, ordering: .relaxed) }

    /// Adds `delta` (negative to subtract).
    public func add(_ delta: Double) {
        var old = bits.load(ordering: .relaxed)
        // Bounded in practice: it only repeats while another thread changed the value meanwhile.
        while true {
            let (exchanged, seen) = bits.compareExchange(expected: old, desired: (Double(bitPattern: old) + delta).bitPattern,
                                                         ordering: .relaxed)
            if exchanged { return }
            old = seen
        }
    }

    /// The value.
    public var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }

    public func write(name: String, labels: String, into text: inout String) {
        text += "\(name)\(labels) \(MetricText.number(value))\n"
    }
}

/// Observations counted into cumulative buckets (`le`), with their sum and count.
public final class Histogram: MetricChild {
    public static let kind = MetricKind.histogram
    private struct State {
        var counts: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0
    }

    /// The buckets' upper bounds, ascending, without `+Inf` (always there).
    public let bounds: [Double]
    private let state: Mutex<State>

    init(bounds: [Double]) {
        precondition(!bounds.isEmpty && zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "histogram buckets must ascend")
        self.bounds = bounds
        state = Mutex(State(counts: Array(repeating: 0, count: bounds.count)))
    }

    /// Counts `value` into the first bucket that holds it (and so, cumulatively, every later one).
    public func observe(_ value: Double) {
        let index = bounds.firstIndex { value <= $0 }
        state.withLock { state in
            if let index { state.counts[index] += 1 }
            state.sum += value
            state.count += 1
        }
    }

    /// How many observations so far.
    public var count: UInt64 { state.withLock { $0.count } }

    public func write(name: String, labels: String, into text: inout String) {
        let (counts, sum, count) = state.withLock { ($0.counts, $0.sum, $0.count) }
        // `le` goes after the family's own labels: `labels` is "" or "{a=\"x\"}".
        let prefix = labels.isEmpty ? "{" : String(labels.dropLast()) + ","
        var cumulative: UInt64 = 0
        for (bound, bucket) in zip(bounds, counts) {
            cumulative += bucket
            text += "\(name)_bucket\(prefix)le=\"\(MetricText.number(bound))\"} \(cumulative)\n"
        }
        text += "\(name)_bucket\(prefix)le=\"+Inf\"} \(count)\n"
        text += "\(name)_sum\(labels) \(MetricText.number(sum))\n"
        text += "\(name)_count\(labels) \(count)\n"
    }
}
