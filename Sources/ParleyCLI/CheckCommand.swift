import ParleyBots
import ParleyFlowTest
import YAMLCoding

/// `parley check`: loads the config, every bot file and every flow-test file, prints every
/// error of every file, and exits 1 if there were any (0 with a one-line summary otherwise).
enum CheckCommand: Subcommand {
    static let name = "check"
    static let abstract = "Check config.yaml, every bot and every flow-test file; print every error."
    static let positionalUsage = ""
    static let options: [OptionSpec] = [
        .config,
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let configFile = try arguments.configFile()
        let catalog = HostCatalog.load(configFile: configFile, resolve: context.resolve, environment: context.environment)
        var errors = catalog.errors
        var testCount = 0
        for file in catalog.testFiles {
            let loaded = LoadedFlowTest.load(file: file.file, path: file.path, bots: catalog.bots, environment: context.environment)
            errors += loaded.errors
            testCount += loaded.test?.definition.tests.count ?? 0
        }
        if errors.isEmpty {
            context.output.line("ok: " + [
                count(catalog.bots.count, "bot"), count(catalog.commandCount, "command"),
                count(catalog.triggerCount, "trigger"), count(catalog.flowCount, "flow"),
                count(catalog.scheduleCount, "schedule"), count(testCount, "test"),
            ].joined(separator: ", "))
            return 0
        }
        let sorted = errors.sortedByPosition()
        for error in sorted { context.output.errorLine(error.description) }
        let files = Set(sorted.map(\.file)).count
        context.output.errorLine("check failed: \(count(sorted.count, "error")) in \(count(files, "file"))")
        return 1
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
