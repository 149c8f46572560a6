import YAMLCoding

extension BotValidator {
    /// `audiences:`: names, subscribe commands that collide with nothing, unsubscribe words
    /// (every audience needs one: a member must always be able to leave), their actions.
    func checkAudiences() {
        var commands: [String: String] = [:]   // subscribe command → audience
        for entry in bot.audiences.entries {
            let audience = entry.value
            if !BotValidator.isName(entry.name) {
                fail(entry.keyMark, "invalid audience name '\(entry.name)': expected letters, digits, '_' or '-'")
            }
            for command in audience.subscribe {
                checkName(command, what: "subscribe command")
                if bot.commands[command.value] != nil || bot.commands.entries.contains(where: { $0.value.aliases.contains { $0.value == command.value } }) {
                    fail(command.mark, "subscribe command '\(command.value)' of audience '\(entry.name)' is already a command of the bot")
                } else if let other = commands.updateValue(entry.name, forKey: command.value) {
                    fail(command.mark, "subscribe command '\(command.value)' of audience '\(entry.name)' is already taken by audience '\(other)'")
                }
            }
            if audience.unsubscribe.isEmpty {
                fail(entry.keyMark, "audience '\(entry.name)' needs 'unsubscribe' words (like [stop]): a member must always be able to leave")
            }
            for word in audience.unsubscribe where word.value.isEmpty || word.value.contains(where: \.isWhitespace) {
                fail(word.mark, "invalid unsubscribe word '\(word.value)': expected one word without spaces")
            }
            if let description = audience.description, description.value.contains("\n") {
                fail(description.mark, "the description of audience '\(entry.name)' must be one line")
            }
            if let file = audience.importFile, file.value.isEmpty {
                fail(file.mark, "'import' is empty: expected a file with one target a line")
            }
            let scope = TemplateScope(place: .text("audience '\(entry.name)'"))
            if let actions = audience.onSubscribe { checkActions(actions.value, scope: scope) }
            if let actions = audience.onUnsubscribe { checkActions(actions.value, scope: scope) }
        }
    }
}
