/// A `parley` subcommand: its name, help, options and how it runs.
protocol Subcommand: Sendable {
    /// The word after `parley`.
    static var name: String { get }
    /// One line for the top-level command list.
    static var abstract: String { get }
    /// Options besides `--help`.
    static var options: [OptionSpec] { get }
    /// Positional arguments in the usage line (`<file>`), empty for none.
    static var positionalUsage: String { get }
    /// Runs with parsed arguments; returns the exit code.
    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32
}

extension Subcommand {
    /// `usage: parley check [--config <file>]`
    static var usage: String {
        var parts = ["usage: parley", name]
        for option in options {
            parts.append(option.valueName.map { "[--\(option.long) <\($0)>]" } ?? "[--\(option.long)]")
        }
        if !positionalUsage.isEmpty { parts.append(positionalUsage) }
        return parts.joined(separator: " ")
    }

    /// The `--help` text: abstract, usage, options.
    static var help: String {
        var lines = [abstract, "", usage, "", "options:"]
        for option in options + [.help] {
            var label = "--\(option.long)"
            if let short = option.short { label = "-\(short), " + label }
            if let valueName = option.valueName { label += " <\(valueName)>" }
            lines.append("  " + label.padding(toLength: max(label.count, 24), withPad: " ", startingAt: 0) + option.help)
        }
        return lines.joined(separator: "\n")
    }
}
