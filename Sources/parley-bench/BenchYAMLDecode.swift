import Foundation
import YAMLCoding
import ParleyCore
import ParleyCLI
import ParleyBots

// MARK: - Bot files: full decoding + validation, and `parley check` over a folder

/// `parley-bench yaml-decode`: 1,000 generated bot files of 40 commands each; reports decoding +
/// validation throughput against raw libyaml events, and the time of `parley check` over them.
/// In-memory figures are the best of five interleaved rounds, in CPU time of this thread;
/// `check` in wall-clock time and in CPU time of the process, since the machine is shared.
func benchYAMLDecode() async throws {
    let texts = (0..<1000).map(BenchBotCorpus.botFile)
    let bytes = texts.reduce(0) { $0 + $1.utf8.count }
    // The figures must measure the success path: every file decodes and validates cleanly.
    let errors = BenchBotCorpus.decodeAndValidate(texts)
    guard errors == 0 else { throw BenchFailure("generated bot files have \(errors) validation errors") }
    print(String(format: "yaml-decode corpus: 1000 bot files, 40 commands each, %.2f MB", Double(bytes) / 1_000_000))

    // The four stages take turns, five rounds, best of each kept: load from other processes on
    // the shared machine then hits them alike, and the ratios compare like with like.
    let decoder = YAMLDecoder(environment: [:])
    var raw = Double.infinity, tree = Double.infinity, decodeOnly = Double.infinity, decode = Double.infinity
    for _ in 0..<5 {
        raw = min(raw, threadCPUTime { for text in texts { _ = try? YAMLEventCounter.count(text) } })
        tree = min(tree, threadCPUTime { for text in texts { _ = try? parseYAML(text, file: "bench.yaml") } })
        // Decoding alone (YAMLCoding + the schema's decoding), to tell it from validation.
        decodeOnly = min(decodeOnly, threadCPUTime {
            for text in texts { _ = try? decoder.decode(BotDefinition.self, from: text, file: "bench.yaml") }
        })
        decode = min(decode, threadCPUTime { _ = BenchBotCorpus.decodeAndValidate(texts) })
    }
    func rate(_ seconds: Double) -> Double { Double(bytes) / 1_000_000 / max(seconds, 1e-9) }
    print(String(format: "yaml-decode raw libyaml events: %.1f MB/s", rate(raw)))
    print(String(format: "yaml-decode node tree: %.1f MB/s (%.0f%% of raw)", rate(tree), 100 * raw / max(tree, 1e-9)))
    print(String(format: "yaml-decode decode bots (no validation): %.1f MB/s (%.0f%% of raw)", rate(decodeOnly), 100 * raw / max(decodeOnly, 1e-9)))
    print(String(format: "yaml-decode decode+validate bots: %.1f MB/s (%.0f%% of raw libyaml events; target >= 40%%)",
                 rate(decode), 100 * raw / max(decode, 1e-9)))

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("bots"), withIntermediateDirectories: true)
    try "transport:\n  kind: local\nbots: bots\n".write(to: folder.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
    for (index, text) in texts.enumerated() {
        try text.write(to: folder.appendingPathComponent("bots/bot\(index).yaml"), atomically: false, encoding: .utf8)
    }
    var wall = Double.infinity, cpu = Double.infinity
    var summary = ""
    for _ in 0..<3 {
        let output = CapturedOutput()
        let context = CommandContext(output: output, environment: [:], currentDirectory: folder.path)
        let cpuStart = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
        let start = ContinuousClock.now
        let status = await ParleyCommand.main(["check"], context: context)
        wall = min(wall, (ContinuousClock.now - start).timeInterval)
        cpu = min(cpu, cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - cpuStart)
        guard status == 0 else { throw BenchFailure("check failed: " + output.standardError.prefix(2000)) }
        summary = output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    print(String(format: "yaml-decode parley check over 1000 files: %.3f s wall, %.3f s CPU (target < 1.5 s; %@)", wall, cpu, summary))
}

/// CPU seconds used so far by this thread or process (`clock`).
private func cpuSeconds(_ clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// CPU seconds this thread spends in `body`.
private func threadCPUTime(_ body: () -> Void) -> Double {
    let start = cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
    body()
    return cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - start
}
