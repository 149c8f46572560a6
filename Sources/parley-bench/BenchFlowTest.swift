import Foundation
import ParleyBots
import ParleyFlowTest

/// `parley-bench flowtest`: 1,000 generated flow tests of 10 steps each (sends, every kind of
/// expectation, an `advance` firing a `wait`) on the real engine and embedded hub, run with
/// `--jobs 1` and `--jobs 2`. Prints steps/s for each and whether the reports are identical.
func benchFlowTest() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-flowtest-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("bots"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data("bots: bots\n".utf8).write(to: folder.appendingPathComponent("config.yaml"))
    try Data(benchBot.utf8).write(to: folder.appendingPathComponent("bots/bench.yaml"))
    // 20 files of 50 tests: parallelism is per test, so the split only shapes the report.
    var files: [TestDiscovery.Found] = []
    for fileIndex in 0..<20 {
        var text = "bot: bench\nuser: alice\nnow: \"2026-12-01T10:00:00Z\"\nprofiles:\n  alice: { name: Alice }\ntests:\n"
        for testIndex in 0..<50 {
            text += "  - name: test \(fileIndex * 50 + testIndex)\n    steps:\n" + benchSteps(testIndex)
        }
        let name = "bots/t\(fileIndex).test.yaml"
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        files.append(TestDiscovery.Found(file: name, path: folder.appendingPathComponent(name).path))
    }
    let catalog = HostCatalog.load(configFile: folder.appendingPathComponent("config.yaml").path, resolve: { $0 }, environment: [:])
    guard catalog.errors.isEmpty else { throw BenchFailure(catalog.errors.map(\.description).joined(separator: "\n")) }

    var reports: [Int: String] = [:]
    for jobs in [1, 2] {
        let suite = TestSuite(bots: catalog.bots, host: InProcessBotHost(), jobs: jobs)
        _ = await suite.run(Array(files.prefix(1)))  // warm-up: compiled bot, first allocations
        let started = ContinuousClock.now
        let cpuStarted = processCPUSeconds()
        let results = await suite.run(files)
        let seconds = (ContinuousClock.now - started).timeInterval
        let cpuSeconds = processCPUSeconds() - cpuStarted
        let summary = TestSummary(results)
        guard summary.failed == 0, summary.passed == 1_000 else {
            throw BenchFailure("expected 1000 passing tests, got \(summary.line)\n" + TextReport.failureLines(for: results).prefix(1).joined(separator: "\n"))
        }
        reports[jobs] = TextReport.text(for: results)
        print("flowtest jobs=\(jobs): \(summary.steps) steps in \(String(format: "%.3f", seconds)) s = \(Int(Double(summary.steps) / seconds)) steps/s")
        // On a shared machine the wall clock includes other people's work; CPU time does not.
        print("flowtest jobs=\(jobs): \(String(format: "%.3f", cpuSeconds)) CPU s = \(Int(Double(summary.steps) / cpuSeconds)) steps per CPU second")
    }
    print("flowtest identical reports jobs=1 vs jobs=2: \(reports[1] == reports[2] ? "yes" : "NO")")
}

/// User plus system CPU time of this process so far.
private func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Ten steps touching every expectation kind; `index` varies the texts so tests differ.
private func benchSteps(_ index: Int) -> String {
    """
          - send: /ping
          - expect: { text: pong }
          - send: hello \(index)
          - expect: { contains: "Hello, Alice" }
          - send: /ack
          - expect: { reaction: "👍" }
          - expect: { text: "Got it.", quote: last }
          - send: /later
          - advance: 5m
          - expect: { matches: "^Wait" }

    """
}

private let benchBot = """
    id: bench
    name: Bench
    commands:
      ping:
        reply: pong
      ack:
        do:
          - react: "👍"
          - reply: "Got it."
            quote: true
      later:
        do:
          - reply: "Wait for it."
          - wait: 5m
          - reply: "Done waiting."
    triggers:
      - contains: hello
        reply: "Hello, {{user.name}}!"

    """
