/// The result of parsing tokens against a command's options.
struct ParsedArguments: Sendable {
    var values: [String: String] = [:]
    /// Every value of each option in command-line order (for options given more than once).
    var allValues: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    /// Parses `tokens`: options may take their value as `--name=value` or as the next token.
    static func parse(_ tokens: [ArgumentToken], options: [OptionSpec]) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        while index < tokens.count {
            defer { index += 1 }
            switch tokens[index] {
            case .positional(let value):
                result.positionals.append(value)
            case .option(let name, let inlineValue, let spelling):
                guard let spec = options.first(where: { $0.long == name || ($0.short.map(String.init) == name) }) else {
                    throw UsageError("unknown option '\(spelling)'")
                }
                guard spec.valueName != nil else {
                    if inlineValue != nil { throw UsageError("option '--\(spec.long)' takes no value") }
                    result.flags.insert(spec.long)
                    continue
                }
                if let inlineValue {
                    result.values[spec.long] = inlineValue
                    result.allValues[spec.long, default: []].append(inlineValue)
                } else if index + 1 < tokens.count, case .positional(let value) = tokens[index + 1] {
                    result.values[spec.long] = value
                    result.allValues[spec.long, default: []].append(value)
                    index += 1
                } else {
                    throw UsageError("option '\(spelling)' needs a value")
                }
            }
        }
        return result
    }

    /// The `--config` file (config.yaml when not given); an empty name is a usage error.
    func configFile() throws(UsageError) -> String {
        let file = values[OptionSpec.config.long] ?? "config.yaml"
        if file.isEmpty { throw UsageError("option '--config' needs a file name") }
        return file
    }
}
