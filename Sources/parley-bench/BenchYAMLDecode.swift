import Foundation
import YAMLCoding
import ParleyCore
import ParleyCLI

// MARK: - Bot files: full decoding + validation, and `parley check` over a folder

/// `parley-bench yaml-decode`: 1,000 generated bot files of 40 commands each; reports decoding +
/// validation throughput against raw libyaml events, and the time of `parley check` over them.
/// Best of three runs each; in-memory figures in CPU time of this thread (as `benchYAMLRaw`),
/// `check` in wall-clock time and in CPU time of the process, since the machine is shared.
func benchYAMLDecode() async throws {
    let texts = (0..<1000).map(BenchBotCorpus.botFile)
    let bytes = texts.reduce(0) { $0 + $1.utf8.count }
    // The figures must measure the success path: every file decodes and validates cleanly.
    let errors = BenchBotCorpus.decodeAndValidate(texts)
    guard errors == 0 else { throw BenchFailure("generated bot files have \(errors) validation errors") }
    print(String(format: "yaml-decode corpus: 1000 bot files, 40 commands each, %.2f MB", Double(bytes) / 1_000_000))

    let raw = benchYAMLRaw(texts: texts)
    var decode = Double.infinity
    for _ in 0..<3 {
        let start = cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
        _ = BenchBotCorpus.decodeAndValidate(texts)
        decode = min(decode, cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - start)
    }
    let rawRate = Double(raw.bytes) / 1_000_000 / max(raw.seconds, 1e-9)
    let decodeRate = Double(bytes) / 1_000_000 / max(decode, 1e-9)
    print(String(format: "yaml-decode raw libyaml events: %.1f MB/s", rawRate))
    print(String(format: "yaml-decode decode+validate bots: %.1f MB/s (%.0f%% of raw libyaml events; target >= 40%%)",
                 decodeRate, 100 * decodeRate / rawRate))

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
