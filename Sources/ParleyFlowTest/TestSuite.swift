import Foundation
import ParleyBots

/// Runs flow-test files: loads and validates each, runs every test (in parallel up to `jobs`)
/// and hands back results in file and test order, whatever order they finished in.
public struct TestSuite: Sendable {
    /// The host's bots (`HostCatalog.bots`).
    public var bots: [LoadedBot]
    /// Starts the bot engine for each test.
    public var host: any TestBotHost
    /// Where each test's conversation takes place (default: a fresh embedded hub per test).
    public var stage: any TestStage
    /// Only tests whose name contains this run; the others are skipped.
    public var filter: String?
    /// How many tests run at once (at least 1).
    public var jobs: Int
    /// Step and wake-up budgets, and the wall-clock cap per test.
    public var limits: TestLimits
    /// For `${VAR}` in test files.
    public var environment: [String: String]

    /// Creates a suite.
    public init(bots: [LoadedBot], host: any TestBotHost, stage: any TestStage = HubTestStage(), filter: String? = nil, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                limits: TestLimits = TestLimits(), environment: [String: String] = [:]) {
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
    public func run(_ files: [TestDiscovery.Found],
                    onFile: @Sendable (TestFileResult) -> Void = { _ in }) async -> [TestFileResult] {
        var results = files.map { TestFileResult(file: $0.file) }
        var units: [(file: Int, test: Int, run: TestRun)] = []
        for (index, loaded) in await loadAll(files).enumerated() {
            switch loaded {
            case .failure(let errors):
                results[index].errors = errors
            case .runs(let runs):
                for (testIndex, run) in runs.enumerated() {
                    if let filter, !run.name.contains(filter) {
                        results[index].tests.append(TestResult(name: run.name, status: .skipped, steps: 0, seconds: 0))
                    } else if !stage.supportsVirtualTime, run.test.steps.contains(where: \.isAdvance) {
                        results[index].tests.append(TestResult(name: run.name, status: .skipped, steps: 0, seconds: 0,
                                                               skipReason: stage.virtualTimeSkipReason))
                    } else if !stage.supportsRestart, run.test.steps.contains(where: \.isRestart) {
                        results[index].tests.append(TestResult(name: run.name, status: .skipped, steps: 0, seconds: 0,
                                                               skipReason: stage.restartSkipReason))
                    } else {
                        results[index].tests.append(TestResult(name: run.name, status: .passed, steps: 0, seconds: 0))
                        units.append((index, testIndex, run))
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
        await withTaskGroup(of: (Int, TestResult).self) { group in
            var next = 0
            func startNext() {
                guard next < units.count else { return }
                let (run, index) = (units[next].run, next)
                group.addTask { [stage, host] in (index, await run.execute(on: stage, host: host, watchdog: watchdog)) }
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

    /// A file's test runs, or why it cannot run.
    enum Loaded: Sendable {
        case runs([TestRun])
        case failure([String])
    }

    /// Loads `files` in parallel (up to `jobs` at once), results in file order.
    private func loadAll(_ files: [TestDiscovery.Found]) async -> [Loaded] {
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
    func load(_ found: TestDiscovery.Found) -> Loaded {
        let (loaded, errors) = LoadedTestFile.load(file: found.file, path: found.path, bots: bots, environment: environment)
        guard let loaded, errors.isEmpty, let bot = bots.first(where: { $0.id == loaded.definition.bot.value }) else {
            return .failure(errors.map(\.description))
        }
        return .runs(TestRun.runs(of: loaded.definition, file: found.file, bot: bot, limits: limits))
    }
}

/// Finds flow-test files: every `*.test.yaml` under the given paths (folders searched
/// recursively, in sorted order; files taken as they are).
public enum TestDiscovery {
    /// One test file: as shown to users, and its file-system path.
    public struct Found: Sendable, Hashable {
        /// The path as shown in reports (as the user wrote it, or found under it).
        public var file: String
        /// The file-system path it is read from.
        public var path: String
        /// Creates an entry.
        public init(file: String, path: String) {
            self.file = file
            self.path = path
        }
    }

    /// The test files under `paths` (as the user wrote them; `resolve` gives file-system paths),
    /// or one error line per path that does not exist. Duplicates are listed once.
    public static func find(_ paths: [String], resolve: (String) -> String) -> (found: [Found], errors: [String]) {
        var found: [Found] = []
        var seen: Set<String> = []
        var errors: [String] = []
        for shown in paths {
            let path = resolve(shown)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                errors.append("\(shown): no such file or folder")
                continue
            }
            let files = isDirectory.boolValue ? testFiles(inFolder: path).map { relative in
                (join(shown, relative), join(path, relative))
            } : [(shown, path)]
            for (file, path) in files where seen.insert(path).inserted {
                found.append(Found(file: file, path: path))
            }
        }
        return (found, errors)
    }

    /// Paths relative to `folder` of every `*.test.yaml` below it, sorted; hidden entries skipped.
    private static func testFiles(inFolder folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        // Bounded: a file tree is finite, but a symlink loop is not; stop at a generous count.
        while files.count < 100_000, let next = enumerator.nextObject() as? String {
            let name = (next as NSString).lastPathComponent
            if name.hasPrefix(".") {
                enumerator.skipDescendants()
                continue
            }
            if name.hasSuffix(".test.yaml") { files.append(next) }
        }
        return files.sorted()
    }

    private static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}

/// The bounds that keep every test finite, whatever the bot does.
public struct TestLimits: Sendable, Hashable {
    /// Most steps one test may have.
    public var maxSteps: Int
    /// Most clock wake-ups one `advance` may cause (a bot re-arming a timer for "now" forever).
    public var maxWakeupsPerAdvance: Int
    /// Wall-clock time one test may take; past it, the test fails (the bot never became idle).
    public var wallClock: Duration

    /// Creates limits; the defaults suit real bots by orders of magnitude.
    public init(maxSteps: Int = 10_000, maxWakeupsPerAdvance: Int = 100_000, wallClock: Duration = .seconds(10)) {
        self.maxSteps = maxSteps
        self.maxWakeupsPerAdvance = maxWakeupsPerAdvance
        self.wallClock = wallClock
    }
}
