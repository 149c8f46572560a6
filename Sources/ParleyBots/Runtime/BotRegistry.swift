import ParleyCore

/// Builds content registries that know everything bots send.
public enum BotContentRegistry {
    /// The built-ins, the hand-off ticket card and `cards` (a card whose name or code is
    /// already registered, as when several bots share it, is skipped).
    public static func make(cards: [CardDefinition]) -> ContentRegistry {
        var registry = ContentRegistry.standard
        // Codes of the built-ins and the ticket are distinct, so this cannot conflict.
        try? registry.register(TicketContent.self)
        for card in cards.sorted(by: { $0.typeCode < $1.typeCode }) where registry.name(of: card.typeCode) == nil {
            try? registry.register(card: card)
        }
        return registry
    }
}
