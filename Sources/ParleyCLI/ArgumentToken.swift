/// One element of argv after tokenising, before any subcommand interprets it.
enum ArgumentToken: Sendable, Hashable {
    /// `--name`, `--name=value` or `-n` (value only with `=`).
    case option(name: String, value: String?, spelling: String)
    /// Anything else, or everything after `--`.
    case positional(String)

    /// Splits argv: options start with `-` (but a lone `-` is positional), `--` ends options.
    static func tokenize(_ arguments: [String]) -> [ArgumentToken] {
        var tokens: [ArgumentToken] = []
        var optionsEnded = false
        for argument in arguments {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                tokens.append(.positional(argument))
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    tokens.append(.option(name: String(body[..<equals]), value: String(body[body.index(after: equals)...]), spelling: argument))
                } else {
                    tokens.append(.option(name: String(body), value: nil, spelling: argument))
                }
            } else {
                // Short options: `-h`; grouped flags (`-hv`) are split one per letter.
                for letter in argument.dropFirst() {
                    tokens.append(.option(name: String(letter), value: nil, spelling: "-\(letter)"))
                }
            }
        }
        return tokens
    }
}
