import Foundation
import ParleyBots
import ParleyCore
import ParleyFlowTest
import ParleyHosting

/// `parley test`: runs conversation-flow tests (`*.test.yaml`) on the embedded hub with a
/// virtual clock, prints one line per test, the failure reports and `N passed, N failed`;
/// exits 0 only when nothing failed.
enum TestCommand: Subcommand {
    static let name = "test"
    static let abstract = "Run the conversation-flow tests (*.test.yaml) of the bots folder or the paths given."
    static let positionalUsage = "[<path>...]"
    static let options: [OptionSpec] = [
        .config,
        OptionSpec(long: "filter", short: nil, valueName: "name", help: "Run only tests whose name contains this text."),
        OptionSpec(long: "junit", short: nil, valueName: "file", help: "Also write the results as JUnit XML to this file."),
        OptionSpec(long: "jobs", short: "j", valueName: "n", help: "Tests run at once (default: the number of cores)."),
        OptionSpec(long: "target", short: nil, valueName: "@bot:server",
                   help: "With a kind: matrix config: test this Matrix account instead of hosting the bot."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        let configFile = try arguments.configFile()
        var jobs = ProcessInfo.processInfo.activeProcessorCount
        if let text = arguments.values["jobs"] {
            guard let value = Int(text), value >= 1 else { throw UsageError("option '--jobs' needs a whole number of at least 1, got '\(text)'") }
            jobs = value
        }
        if arguments.values["junit"]?.isEmpty == true { throw UsageError("option '--junit' needs a file name") }
        let output = context.output
        let loaded = HostLoader.load(configFile: configFile, resolve: context.resolve, environment: context.environment, checkTests: false)
        guard loaded.errors.isEmpty, let transport = loaded.transport else {
            for error in loaded.errors { output.errorLine(error.description) }
            output.errorLine("test failed: the host does not load (\(loaded.errors.count) error\(loaded.errors.count == 1 ? "" : "s")); see 'parley check'")
            return 1
        }
        let catalog = loaded.catalog
        let files: [TestDiscovery.Found]
        if arguments.positionals.isEmpty {
            files = catalog.testFiles.map { TestDiscovery.Found(file: $0.file, path: $0.path) }
        } else {
            let found = TestDiscovery.find(arguments.positionals, resolve: context.resolve)
            guard found.errors.isEmpty else {
                for error in found.errors { output.errorLine("error: \(error)") }
                return 1
            }
            files = found.found
        }
        guard !files.isEmpty else {
            output.errorLine("error: no *.test.yaml files in " + (arguments.positionals.isEmpty ? "the bots folder" : arguments.positionals.joined(separator: ", ")))
            return 1
        }
        let setup: TestSetup
        do {
            setup = try transport.testSetup(target: arguments.values["target"], environment: context.environment)
        } catch let error as ParleyError {
            throw UsageError(error.message)
        } catch {
            throw UsageError("\(error)")
        }
        let suite = TestSuite(bots: catalog.bots, host: setup.host, stage: setup.stage, filter: arguments.values["filter"],
                              jobs: jobs, environment: context.environment)
        let results = await suite.run(files) { file in
            for line in TextReport.lines(for: file) { output.line(line) }
        }
        let failures = TextReport.failureLines(for: results)
        if !failures.isEmpty { output.line("\n" + failures.joined(separator: "\n")) }
        let summary = TestSummary(results)
        output.line(summary.line)
        if let junit = arguments.values["junit"] {
            do {
                try Data(JUnitReport.xml(for: results).utf8).write(to: URL(fileURLWithPath: context.resolve(junit)))
            } catch {
                output.errorLine("error: cannot write the JUnit report to \(junit): \(error.localizedDescription)")
                return 1
            }
        }
        return summary.failed == 0 ? 0 : 1
    }
}
