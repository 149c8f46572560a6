import Foundation
import ParleyBots
import ParleyTesting
import Testing
@testable import ParleyFlowTest

/// Runs test files against the fixture host (`Fixtures/config.yaml`, bot `helper`) with the
/// real engine on the embedded hub. Generated files go to a fresh temporary folder.
struct TestFileHarness {
    static let fixtures = TestFixtures.flowHost
    static let firstStepLine = FlowHostFile.firstStepLine

    let bots: [LoadedBot]
    let folder: TemporaryFolder

    init() throws {
        let catalog = HostCatalog.load(configFile: Self.fixtures + "/config.yaml", resolve: { $0 }, environment: [:])
        try #require(catalog.errors.isEmpty, "\(catalog.errors)")
        bots = catalog.bots
        folder = try TemporaryFolder("flowtest")
    }

    /// Writes `text` as `name` in the temporary folder; returns it as a test file.
    func write(_ text: String, as name: String = "case.test.yaml") throws -> TestDiscovery.Found {
        TestDiscovery.Found(file: name, path: try folder.write(text, as: name))
    }

    /// One test named `case` with `steps` (one step a line, without indentation).
    static func file(steps: [String]) -> String { FlowHostFile.text(steps: steps) }

    func run(_ files: [TestDiscovery.Found], jobs: Int = 2, filter: String? = nil,
             limits: TestLimits = TestLimits(), host: any TestBotHost = InProcessBotHost()) async -> [TestFileResult] {
        await TestSuite(bots: bots, host: host, filter: filter, jobs: jobs, limits: limits).run(files)
    }

    /// The one failure of a one-test run, or a recorded issue.
    func failure(steps: [String], limits: TestLimits = TestLimits(), host: any TestBotHost = InProcessBotHost(),
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> TestFailure {
        let results = await run([try write(Self.file(steps: steps))], limits: limits, host: host)
        try #require(results.first?.errors == [], "\(results.first?.errors ?? [])", sourceLocation: sourceLocation)
        guard case .failed(let failure)? = results.first?.tests.first?.status else {
            Issue.record("expected the test to fail", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return failure
    }

    func remove() { folder.remove() }
}
