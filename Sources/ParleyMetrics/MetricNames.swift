/// Prometheus naming rules, checked when a family is registered: a bad name is a
/// programming error, found by the first test that builds the registry.
enum MetricNames {
    static func check(name: String, labels: [String]) {
        precondition(isValid(name, colons: true), "invalid metric name '\(name)'")
        for label in labels {
            precondition(isValid(label, colons: false) && !label.hasPrefix("__") && label != "le",
                         "invalid label name '\(label)' of \(name)")
        }
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*` (labels: no colons).
    static func isValid(_ name: String, colons: Bool) -> Bool {
        guard let first = name.utf8.first else { return false }
        func letter(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || (colons && byte == 0x3A)
        }
        return letter(first) && name.utf8.allSatisfy { letter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }
}
