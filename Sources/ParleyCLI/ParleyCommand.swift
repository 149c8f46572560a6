/// The `parley` command line. `main` returns an exit code instead of calling `exit`, so
/// tests drive it with a `CapturedOutput`.
public enum ParleyCommand {
    /// Exit code for a command line that cannot be run (BSD `EX_USAGE`).
    public static let usageExitCode: Int32 = 64

    static let subcommands: [any Subcommand.Type] = [CheckCommand.self, RunCommand.self, ChatCommand.self, TestCommand.self,
                                                     BroadcastCommand.self, BroadcastsCommand.self, AudiencesCommand.self, ClusterCommand.self]

    static var usage: String { "usage: parley <subcommand> [options]" }

    static var help: String {
        var lines = ["parley — a bot host for instant messaging.", "", usage, "", "subcommands:"]
        for command in subcommands {
            lines.append("  " + command.name.padding(toLength: max(10, command.name.count + 1), withPad: " ", startingAt: 0) + command.abstract)
        }
        lines += ["", "See 'parley <subcommand> --help' for a subcommand's options."]
        return lines.joined(separator: "\n")
    }

    /// Runs `parley` with `arguments` (argv without the program name) on the real process streams.
    public static func main(_ arguments: [String]) async -> Int32 {
        await main(arguments, context: CommandContext())
    }

    /// Runs `parley` with an explicit context (output sink, environment, working directory).
    public static func main(_ arguments: [String], context: CommandContext) async -> Int32 {
        let output = context.output
        guard let first = arguments.first else {
            output.errorLine(help)
            return usageExitCode
        }
        if first == "--help" || first == "-h" || first == "help" {
            output.line(help)
            return 0
        }
        guard let command = subcommands.first(where: { $0.name == first }) else {
            output.errorLine(first.hasPrefix("-") ? "error: unknown option '\(first)'" : "error: unknown subcommand '\(first)'")
            output.errorLine(usage)
            return usageExitCode
        }
        do throws(UsageError) {
            let tokens = ArgumentToken.tokenize(Array(arguments.dropFirst()))
            let parsed = try ParsedArguments.parse(tokens, options: command.options + [.help])
            if parsed.flags.contains("help") {
                output.line(command.help)
                return 0
            }
            return try await command.run(parsed, context: context)
        } catch {
            output.errorLine("error: \(error.message)")
            output.errorLine(command.usage)
            return usageExitCode
        }
    }
}
