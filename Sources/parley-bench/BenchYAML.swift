import Foundation
import YAMLCoding

// MARK: - YAML throughput (raw libyaml events, node tree, full decode)

/// Raw libyaml event parsing of `texts`, no tree: the baseline the decoder is measured against.
func benchYAMLRaw(texts: [String]) -> (bytes: Int, seconds: Double) {
    measureYAML(texts) { text in _ = try? YAMLEventCounter.count(text) }
}

/// Parsing `texts` into node trees (marks, aliases, merge keys, duplicate checks).
func benchYAMLTree(texts: [String]) -> (bytes: Int, seconds: Double) {
    measureYAML(texts) { text in _ = try? parseYAML(text, file: "bench.yaml") }
}

/// Full decoding of `texts` into `T` (tree, typed values, unknown-key checks).
func benchYAMLDecode<T: Decodable>(_ type: T.Type, texts: [String]) -> (bytes: Int, seconds: Double) {
    let decoder = YAMLDecoder(environment: ["SUPPORT_PASSWORD": "secret"])
    return measureYAML(texts) { text in _ = try? decoder.decode(T.self, from: text, file: "bench.yaml") }
}

/// The best of three runs, in CPU time of this thread: the machine is shared by several
/// builds, and wall-clock time would count the time other processes held the cores.
private func measureYAML(_ texts: [String], _ body: (String) -> Void) -> (bytes: Int, seconds: Double) {
    let bytes = texts.reduce(0) { $0 + $1.utf8.count }
    var best = Double.infinity
    for _ in 0..<3 {
        let start = threadCPUSeconds()
        for text in texts { body(text) }
        best = min(best, threadCPUSeconds() - start)
    }
    return (bytes, best)
}

private func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// `parley-bench yaml`, first part: the generic path — any `Decodable` through Swift's
/// `Decoder` protocol, here a simplified bot schema of this file (the bot files' own decoder,
/// with validation, is `benchYAMLDecode`, the figure with a target). One line per figure, in MB/s,
/// over generated bot files. The three
/// measurements take turns for five rounds (best of each kept), so that load from other
/// processes on the shared machine hits all of them alike.
func benchYAML() async throws {
    let texts = (0..<400).map(BenchYAMLCorpus.botFile)
    // Check once that the corpus decodes, so the figures measure success paths.
    _ = try YAMLDecoder(environment: ["SUPPORT_PASSWORD": "secret"]).decode(BenchYAMLCorpus.Bot.self, from: texts[0], file: "bench.yaml")
    var raw = (bytes: 0, seconds: Double.infinity)
    var tree = raw
    var decode = raw
    for _ in 0..<5 {
        let rawRound = benchYAMLRaw(texts: texts)
        let treeRound = benchYAMLTree(texts: texts)
        let decodeRound = benchYAMLDecode(BenchYAMLCorpus.Bot.self, texts: texts)
        if rawRound.seconds < raw.seconds { raw = rawRound }
        if treeRound.seconds < tree.seconds { tree = treeRound }
        if decodeRound.seconds < decode.seconds { decode = decodeRound }
    }
    func rate(_ figure: (bytes: Int, seconds: Double)) -> String {
        String(format: "%.1f MB/s", Double(figure.bytes) / 1_000_000 / max(figure.seconds, 1e-9))
    }
    print("yaml generic raw libyaml events: \(rate(raw)) (\(raw.bytes) bytes of bot files)")
    print("yaml generic node tree: \(rate(tree)) (\(String(format: "%.0f", 100 * raw.seconds / tree.seconds))% of raw)")
    print("yaml generic Decodable, simplified schema, no validation: \(rate(decode)) (\(String(format: "%.0f", 100 * raw.seconds / decode.seconds))% of raw)")
}
