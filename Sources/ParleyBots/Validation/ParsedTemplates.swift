import ParleyCore

/// Templates a `BotValidator` has parsed, by text: a bot repeats the same text in many places
/// (the same reply in several commands, `{{args.order}}` in every card that shows an order),
/// and parsing costs far more than a lookup. Only texts that parsed are kept; a failing text is
/// parsed (and reported) again at each place, as before.
final class ParsedTemplates {
    var byText: [String: Template]

    init() {
        // A bot file has some dozens of distinct templates: no rehashing while they come.
        byText = [:]
        byText.reserveCapacity(64)
    }
}
