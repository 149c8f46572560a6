import ParleyBots
import ParleyCore

/// The cards a recorded test may name in `card:` for one bot: the built-ins and the bot's own
/// `cards:`, each known by name and content type code. Anything else the bot sends as a card —
/// the hand-off's ticket, a card of another bot or of a newer Parley — has a name
/// `parley test` rejects (or, when a YAML card shares it, would check the wrong fields), so it
/// is written by its text.
struct RecordableCards: Sendable {
    private let codes: [String: Int64]

    /// The built-ins, plus the cards of `definition` when given.
    init(definition: BotDefinition?) {
        var codes = BuiltInCard.named.mapValues(\.typeCode)
        for entry in definition?.cards.entries ?? [] where codes[entry.name] == nil {
            codes[entry.name] = Int64(entry.value.type.value)
        }
        self.codes = codes
    }

    /// The card name of `output` when a test may write it; nil for text, reactions and cards
    /// the test language does not know.
    func name(of output: BotOutput) -> String? {
        guard let name = output.cardName, case .message(let payload, _, _) = output.kind,
              let code = payload.objectValue?["type"]?.intValue, codes[name] == code else { return nil }
        return name
    }
}
