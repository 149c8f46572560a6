import ParleyRegex

/// Regexes a `BotValidator` has compiled, by text: an `ask.match` is compiled once for the
/// variables its named groups set and once more to report its errors; the second time takes
/// the first one's pattern. Only texts that compiled are kept.
final class CompiledPatterns {
    var byText: [String: Pattern] = [:]

    /// The pattern of `text`, compiled on first use; nil when it does not compile.
    func pattern(_ text: String) -> Pattern? {
        if let known = byText[text] { return known }
        guard let compiled = try? Pattern(text, jit: false) else { return nil }
        byText[text] = compiled
        return compiled
    }
}
