import YAMLCoding

/// Checks `config.yaml` beyond its shape: known kinds and levels, credentials, durations, rates.
public enum HostConfigValidator {
    /// Every problem of `config` (read from `source`); `botIDs` are the bots found, for accounts.
    public static func validate(_ config: HostConfig, source: SourceFile, botIDs: [String]) -> [YAMLError] {
        var errors: [YAMLError] = []
        func fail(_ mark: Mark, _ message: String) { errors.append(source.error(at: mark, message)) }
        func oneOf(_ value: Located<String>?, _ allowed: [String], what: String) {
            guard let value, !allowed.contains(value.value) else { return }
            fail(value.mark, "unknown \(what) '\(value.value)': expected " + BotValidator.list(allowed))
        }
        oneOf(config.transport?.kind, TransportConfig.Kind.allCases.map(\.rawValue), what: "transport kind")
        oneOf(config.log?.level, LogConfig.Level.allCases.map(\.rawValue), what: "log level")
        oneOf(config.log?.format, LogConfig.Format.allCases.map(\.rawValue), what: "log format")
        if let transport = config.transport, config.transportKind == .matrix {
            let at = transport.kind?.mark ?? Mark(line: 1, column: 1)
            if transport.homeserver == nil { fail(at, "transport kind 'matrix' needs 'homeserver' (like http://127.0.0.1:8008)") }
            let accounts = transport.accounts ?? OrderedMap()
            for bot in botIDs where accounts[bot] == nil {
                fail(at, "bot '\(bot)' has no entry in 'transport.accounts': kind 'matrix' needs a user and a password or access_token per bot")
            }
        }
        if let homeserver = config.transport?.homeserver,
           !(homeserver.value.hasPrefix("http://") || homeserver.value.hasPrefix("https://")) {
            fail(homeserver.mark, "invalid homeserver '\(homeserver.value)': expected an http:// or https:// URL")
        }
        for entry in config.transport?.accounts?.entries ?? [] {
            let account = entry.value
            switch (account.password, account.accessToken) {
            case (nil, nil):
                fail(account.mark, "account '\(entry.name)' needs 'password' or 'access_token'")
            case (_?, let token?):
                fail(token.mark, "account '\(entry.name)' has both 'password' and 'access_token': use one of them")
            default:
                break
            }
            if !account.user.value.hasPrefix("@") || !account.user.value.contains(":") {
                fail(account.user.mark, "invalid Matrix user '\(account.user.value)': expected @name:server")
            }
        }
        if let path = config.storage?.path, path.value.isEmpty {
            fail(path.mark, "empty storage path: expected a file like .parley/parley.db or :memory:")
        }
        if let bots = config.bots, bots.value.isEmpty {
            fail(bots.mark, "empty 'bots' folder: expected a folder name like bots")
        }
        if let profiles = config.profiles {
            if profiles.directory != nil && profiles.url != nil, let url = profiles.url {
                fail(url.mark, "'profiles' has both 'directory' and 'url': use one of them")
            }
            if let url = profiles.url, !url.value.contains("{ids}") {
                fail(url.mark, "profiles url '\(url.value)' has no '{ids}': expected a URL with {ids} where the user ids go")
            }
            if let expire = profiles.expire, let error = ValueCheck.duration(expire, in: source) { errors.append(error) }
        }
        if let rate = config.broadcasts?.rate, let error = ValueCheck.rate(rate, in: source) {
            errors.append(error)
        }
        if let size = config.limits?.messageSize, let error = ValueCheck.size(size, in: source) {
            errors.append(error)
        }
        return errors.sortedByPosition()
    }
}

extension BotValidator {
    /// `a, b or c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1, let last = items.last else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + last
    }
}
