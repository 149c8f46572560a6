import YAMLCoding

/// Checks across all bots of a host: unique ids, and card type codes that mean one card.
public enum HostValidator {
    /// Problems between `bots` (each already validated on its own).
    public static func crossCheck(_ bots: [LoadedBot]) -> [YAMLError] {
        var errors: [YAMLError] = []
        var ids: [String: String] = [:]
        var codes: [Int: (bot: String, card: String, definition: CardDeclaration)] = [:]
        for bot in bots {
            if let other = ids[bot.id] {
                let mark = bot.definition.id?.mark ?? Mark(line: 1, column: 1)
                errors.append(bot.source.error(at: mark, "bot id '\(bot.id)' is already used by \(other): ids must be unique"))
            }
            ids[bot.id] = ids[bot.id] ?? bot.file
            for card in bot.definition.cards.entries {
                let code = card.value.type.value
                guard code >= 1000 else { continue }
                if let other = codes[code], other.bot != bot.id {
                    if other.definition != card.value {
                        errors.append(bot.source.error(at: card.value.type.mark,
                            "card type \(code) of card '\(card.name)' is already used by card '\(other.card)' of bot '\(other.bot)' with different fields or fallback: one code must mean one card on a host"))
                    }
                } else if codes[code] == nil {
                    codes[code] = (bot.id, card.name, card.value)
                }
            }
        }
        return errors
    }
}
