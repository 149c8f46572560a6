import Foundation
import ParleyBots
import YAMLCoding

/// Runs flow-test files: loads and validates each, runs every test (in parallel up to `jobs`)
/// and hands back results in file and test order, whatever order they finished in.
public struct FlowTestSuite: Sendable {
    /// The host's bots (`HostCatalog.bots`).
    public var bots: [LoadedBot]
    /// Starts the bot engine for each test.
    public var host: any FlowTestBotHost
    /// Where each test's conversation takes place (default: a fresh embedded hub per test).
    public var stage: any FlowTestStage
    /// Only tests whose name contains this run; the others are skipped.
    public var filter: String?
    /// How many tests run at once (at least 1).
    public var jobs: Int
    /// Step and wake-up budgets, and the wall-clock cap per test.
    public var limits: FlowTestLimits
    /// For `${VAR}` in test files.
    public var environment: [String: String]

    /// Creates a suite.
    public init(bots: [LoadedBot], host: any FlowTestBotHost, stage: any FlowTestStage = HubFlowTestStage(), filter: String? = nil, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                limits: FlowTestLimits = FlowTestLimits(), environment: [String: String] = [:]) {
        self.bots = bots
        self.host = host
        self.stage = stage
        self.filter = filter
        self.jobs = max(1, min(jobs, stage.maximumJobs ?? jobs))
        self.limits = limits
        if let minimum = stage.minimumWallClock { self.limits.wallClock = max(limits.wallClock, minimum) }
        self.environment = environment
    }

    /// Runs `files`. `onFile` is called with each file's result in file order, as soon as the
    /// file and all before it are done (for streaming the report).
    public func run(_ files: [FlowTestDiscovery.Found],
                    onFile: @Sendable (FlowTestFileResult) -> Void = { _ in }) async -> [FlowTestFileResult] {
        var results = files.map { FlowTestFileResult(file: $0.file) }
        var units: [(file: Int, test: Int, execution: FlowTestExecution)] = []
        for (index, loaded) in await loadAll(files).enumerated() {
            switch loaded {
            case .failure(let errors):
                results[index].errors = errors
            case .plan(let plan):
                for (testIndex, test) in plan.file.tests.enumerated() {
                    if let filter, !test.name.value.contains(filter) {
                        results[index].tests.append(FlowTestResult(name: test.name.value, status: .skipped, steps: 0, seconds: 0))
                    } else if !stage.supportsVirtualTime, test.steps.contains(where: \.isAdvance) {
                        results[index].tests.append(FlowTestResult(name: test.name.value, status: .skipped, steps: 0, seconds: 0,
                                                                   skipReason: stage.virtualTimeSkipReason))
                    } else {
                        results[index].tests.append(FlowTestResult(name: test.name.value, status: .passed, steps: 0, seconds: 0))
                        units.append((index, testIndex, FlowTestExecution(plan: plan, test: test)))
                    }
                }
            }
        }
        // Tests left to finish per file: a file is reported once it reaches zero and every
        // earlier file has been reported.
        var remaining = Array(repeating: 0, count: files.count)
        for unit in units { remaining[unit.file] += 1 }
        var reported = 0
        func reportReady() {
            while reported < files.count, remaining[reported] == 0 {
                onFile(results[reported])
                reported += 1
            }
        }
        reportReady()
        let watchdog = WallClockWatchdog()
        defer { watchdog.stop() }
        await withTaskGroup(of: (Int, FlowTestResult).self) { group in
            var next = 0
            func startNext() {
                guard next < units.count else { return }
                let execution = units[next].execution
                let index = next
                group.addTask { (index, await execution.run(watchdog: watchdog)) }
                next += 1
            }
            for _ in 0..<min(jobs, units.count) { startNext() }
            while let (index, result) = await group.next() {
                let unit = units[index]
                results[unit.file].tests[unit.test] = result
                remaining[unit.file] -= 1
                reportReady()
                startNext()
            }
        }
        return results
    }

    /// A file ready to run, or why it cannot run.
    enum Loaded: Sendable {
        case plan(FlowTestPlan)
        case failure([String])
    }

    /// Loads `files` in parallel (up to `jobs` at once), results in file order.
    private func loadAll(_ files: [FlowTestDiscovery.Found]) async -> [Loaded] {
        var loaded = [Loaded](repeating: .failure([]), count: files.count)
        await withTaskGroup(of: (Int, Loaded).self) { group in
            var next = 0
            func startNext() {
                guard next < files.count else { return }
                let (index, found) = (next, files[next])
                group.addTask { [self] in (index, load(found)) }
                next += 1
            }
            for _ in 0..<min(jobs, files.count) { startNext() }
            while let (index, result) = await group.next() {
                loaded[index] = result
                startNext()
            }
        }
        return loaded
    }

    /// Decodes and validates one file against the host's bots.
    func load(_ found: FlowTestDiscovery.Found) -> Loaded {
        let text: String
        switch TextFile.read(found.path, displayPath: found.file) {
        case .failure(let error): return .failure([error.description])
        case .success(let value): text = value
        }
        let file: FlowTestFile
        do {
            file = try YAMLDecoder(environment: environment).decode(FlowTestFile.self, from: text, file: found.file)
        } catch {
            return .failure(error.errors.map(\.description))
        }
        let errors = FlowTestValidator.validate(file, source: SourceFile(name: found.file, text: text), bots: bots)
        guard errors.isEmpty, let bot = bots.first(where: { $0.id == file.bot.value }) else {
            return .failure(errors.map(\.description))
        }
        return .plan(FlowTestPlan(displayPath: found.file, file: file, bot: bot, host: host, stage: stage, limits: limits))
    }
}
