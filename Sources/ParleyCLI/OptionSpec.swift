/// One option a subcommand accepts.
struct OptionSpec: Sendable {
    /// Long name without dashes (`config`).
    var long: String
    /// Short letter, if any (`c`).
    var short: Character?
    /// Value placeholder for options that take a value (`FILE`); nil for flags.
    var valueName: String?
    /// One-line help.
    var help: String

    static let help = OptionSpec(long: "help", short: "h", valueName: nil, help: "Show this help.")
    /// `--config FILE`, which every subcommand that loads a host takes.
    static let config = OptionSpec(long: "config", short: "c", valueName: "file", help: "The host config (default: config.yaml).")
}
