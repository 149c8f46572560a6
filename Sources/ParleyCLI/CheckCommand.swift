import ParleyHosting
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
        let loaded = HostLoader.load(configFile: try arguments.configFile(), resolve: context.resolve, environment: context.environment)
        if loaded.errors.isEmpty {
            let catalog = loaded.catalog
            context.output.line("ok: " + [
                count(catalog.bots.count, "bot"), count(catalog.commandCount, "command"),
                count(catalog.triggerCount, "trigger"), count(catalog.flowCount, "flow"),
                count(catalog.scheduleCount, "schedule"), count(loaded.testCount, "test"),
            ].joined(separator: ", "))
            return 0
        }
        printErrors(loaded.errors, context: context)
        return 1
    }

    /// Every error with its source line, then `check failed: N errors in N files`.
    static func printErrors(_ errors: [YAMLError], context: CommandContext) {
        for error in errors { context.output.errorLine(error.description) }
        let files = Set(errors.map(\.file)).count
        context.output.errorLine("check failed: \(count(errors.count, "error")) in \(count(files, "file"))")
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
