import ParleyBots
import ParleyCore
import YAMLCoding

extension MatrixSettings {
    /// Every problem of the section (in `source`, the config file) and of the bots' names that
    /// have nothing to map to on a homeserver (in each bot's own file, at the line using it).
    func problems(bots: [LoadedBot], source: SourceFile) -> [YAMLError] {
        var errors: [YAMLError] = []
        func fail(_ mark: Mark, _ message: String) { errors.append(source.error(at: mark, message)) }
        let at = kind?.mark ?? Mark(line: 1, column: 1)
        if let homeserver {
            if !(homeserver.value.hasPrefix("http://") || homeserver.value.hasPrefix("https://")) {
                fail(homeserver.mark, "invalid homeserver '\(homeserver.value)': expected an http:// or https:// URL")
            } else if let problem = Self.insecureProblem(homeserver: homeserver.value, allowInsecure: allowsInsecure) {
                fail(homeserver.mark, problem)
            }
        } else {
            fail(at, "transport kind 'matrix' needs 'homeserver' (like http://127.0.0.1:8008)")
        }
        let accounts = self.accounts ?? OrderedMap()
        for bot in bots where accounts[bot.id] == nil {
            fail(at, "bot '\(bot.id)' has no entry in 'transport.accounts': kind 'matrix' needs a user and a password or access_token per bot")
        }
        for entry in accounts.entries {
            let account = entry.value
            switch (account.password, account.accessToken) {
            case (nil, nil):
                fail(account.mark, "account '\(entry.name)' needs 'password' or 'access_token'")
            case (_?, let token?):
                fail(token.mark, "account '\(entry.name)' has both 'password' and 'access_token': use one of them")
            default:
                break
            }
            if !Self.isUserID(account.user.value) {
                fail(account.user.mark, "invalid Matrix user '\(account.user.value)': expected @name:server")
            }
        }
        for entry in rooms?.entries ?? [] where !Self.isRoom(entry.value.value) {
            fail(entry.value.mark, "invalid room '\(entry.value.value)' for '\(entry.name)': expected a room id like !AbCdEf:localhost (or, from room version 12, ! and 43 characters of base64) or an alias like #\(entry.name):localhost")
        }
        for entry in users?.entries ?? [] where !Self.isUserID(entry.value.value) {
            fail(entry.value.mark, "invalid Matrix user '\(entry.value.value)' for '\(entry.name)': expected @name:server")
        }
        if let maxRooms, maxRooms.value < 1 {
            fail(maxRooms.mark, "invalid max_rooms \(maxRooms.value): expected a positive number of rooms, like 10000")
        }
        errors += encryptionProblems(source: source)
        for bot in bots { errors += unmappedNames(of: bot, configFile: source.name) }
        return errors
    }

    /// Groups and queues `bot` names that have no room, and malformed `user:@…` ids.
    private func unmappedNames(of bot: LoadedBot, configFile: String) -> [YAMLError] {
        var errors: [YAMLError] = []
        // An `allow:` entry only filters what arrives: without a room it matches nothing, which
        // is not worth refusing a config for.
        for reference in bot.definition.channelReferences where reference.use != .allow {
            let id = reference.channel.id
            switch reference.channel.kind {
            case .group:
                guard !Self.isRoom(id), rooms?[id] == nil else { continue }
                let what = reference.use == .handoffQueue ? "hand-off queue '\(id)'" : "group '\(id)'"
                errors.append(bot.source.error(at: reference.mark,
                    "\(what) has no room on the Matrix homeserver: map it in 'transport.rooms' of \(configFile) (like \(id): \"#\(id):localhost\")"))
            case .person:
                if id.hasPrefix("@") && !Self.isUserID(id) {
                    errors.append(bot.source.error(at: reference.mark, "invalid Matrix user '\(id)': expected @name:server"))
                }
            case .local:
                break
            }
        }
        return errors
    }

    /// The room names (keys of `rooms`) `bot` uses: it joins them at start.
    func rooms(usedBy bot: LoadedBot) -> [String] {
        var names: [String] = []
        for reference in bot.definition.channelReferences where reference.channel.kind == .group {
            let id = reference.channel.id
            if rooms?[id] != nil, !names.contains(id) { names.append(id) }
        }
        return names
    }

    static func isUserID(_ id: String) -> Bool {
        id.hasPrefix("@") && id.dropFirst().contains(":") && !id.hasPrefix("@:")
    }

    /// A room id or alias. Room ids of room version 12 and later carry no server name: they
    /// are `!` and the create event's hash, 43 characters of unpadded URL-safe base64.
    static func isRoom(_ id: String) -> Bool {
        if id.hasPrefix("!"), id.count == 44, id.dropFirst().allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
            return true
        }
        return (id.hasPrefix("!") || id.hasPrefix("#")) && id.dropFirst().contains(":") && id.count > 3
    }
}
