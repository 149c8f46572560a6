/// Raw libyaml parsing without building nodes: the baseline for throughput measurements.
public enum YAMLEventCounter {
    /// Parses `text` with libyaml and returns how many events it produced.
    public static func count(_ text: String, file: String = "<bench>") throws(YAMLErrors) -> Int {
        let parser = try EventParser(text: text, file: file)
        var count = 0
        while try parser.next() != nil { count += 1 }
        return count
    }
}
