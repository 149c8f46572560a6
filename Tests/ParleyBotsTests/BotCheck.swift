import YAMLCoding
import ParleyBots

/// Decodes and validates a bot file the way `parley check` does, rendering every error.
enum BotCheck {
    static func errors(_ yaml: String, file: String = "bots/t.yaml") -> String {
        do {
            let bot = try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: yaml, file: file)
            return BotValidator.validate(bot, source: SourceFile(name: file, text: yaml))
                .map(\.description).joined(separator: "\n")
        } catch {
            return error.description
        }
    }

    /// The first error's message line, without the source line and caret quoted under it.
    static func firstError(_ yaml: String, file: String = "bots/t.yaml") -> String {
        String(errors(yaml, file: file).prefix { $0 != "\n" })
    }

    static func decode(_ yaml: String, file: String = "bots/t.yaml") throws -> BotDefinition {
        try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: yaml, file: file)
    }
}
