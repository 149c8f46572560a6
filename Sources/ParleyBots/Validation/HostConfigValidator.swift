import ParleyStore
import YAMLCoding

/// Checks `config.yaml` beyond its shape: log levels, paths, profiles, durations, rates (the
/// `transport:` section is its provider's, in the hosting layer).
public enum HostConfigValidator {
    /// Every problem of `config` (read from `source`).
    public static func validate(_ config: HostConfig, source: SourceFile) -> [YAMLError] {
        var errors: [YAMLError] = []
        func fail(_ mark: Mark, _ message: String) { errors.append(source.error(at: mark, message)) }
        func oneOf(_ value: Located<String>?, _ allowed: [String], what: String) {
            guard let value, !allowed.contains(value.value) else { return }
            fail(value.mark, "unknown \(what) '\(value.value)': expected " + BotValidator.list(allowed))
        }
        // `transport:` is checked by its kind's provider in the hosting layer.
        oneOf(config.log?.level, LogConfig.Level.allCases.map(\.rawValue), what: "log level")
        oneOf(config.log?.format, LogConfig.Format.allCases.map(\.rawValue), what: "log format")
        if let path = config.storage?.path, path.value.isEmpty {
            fail(path.mark, "empty storage path: expected a file like .parley/parley.db or :memory:")
        }
        errors += validateDatabase(config.storage, source: source)
        oneOf(config.storage?.durability, StoreDurability.allCases.map(\.rawValue), what: "storage durability")
        if let retention = config.storage?.retention, retention.value != StorageConfig.keepForever {
            if let error = ValueCheck.duration(retention, in: source) {
                errors.append(error)
            } else if let value = try? DurationFormat.parse(retention.value), value < StorageConfig.shortestRetention {
                fail(retention.mark, "storage retention '\(retention.value)' is shorter than 1h: expected a duration like 90d, or forever")
            }
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
        if let http = config.http { errors += validate(http, source: source) }
        return errors.sortedByPosition()
    }

    /// `storage.url` and `storage.lease`: a PostgreSQL URL instead of a path, and a lease only
    /// with it. (`transport.kind: local` with a URL is the hosting layer's to refuse.)
    private static func validateDatabase(_ storage: StorageConfig?, source: SourceFile) -> [YAMLError] {
        var errors: [YAMLError] = []
        func fail(_ mark: Mark, _ message: String) { errors.append(source.error(at: mark, message)) }
        if let url = storage?.url {
            if let path = storage?.path {
                fail(path.mark, "storage has both 'path' and 'url': use 'path' for SQLite (one process) or 'url' for PostgreSQL (several)")
            }
            if !StoreLocation.isPostgresURL(url.value) || url.value.contains("#") {
                fail(url.mark, "storage url '\(StoreLocation.withoutPassword(url.value))' is not a PostgreSQL URL: expected postgres://user@host:5432/database "
                     + "(password from ${ENV} or ~/.pgpass)")
            }
        }
        if let lease = storage?.lease {
            if storage?.url == nil {
                fail(lease.mark, "'lease' needs 'url': leases share bot accounts between processes on PostgreSQL")
            } else if let error = ValueCheck.duration(lease, in: source) {
                errors.append(error)
            } else if let value = try? DurationFormat.parse(lease.value), value < StorageConfig.shortestLease {
                fail(lease.mark, "storage lease '\(lease.value)' is shorter than 2s: expected a duration like 5s")
            }
        }
        return errors
    }

    /// `http:`: a listen address that parses, and a token wherever others can connect.
    private static func validate(_ http: HTTPConfig, source: SourceFile) -> [YAMLError] {
        var errors: [YAMLError] = []
        if let token = http.adminToken, token.value.isEmpty {
            errors.append(source.error(at: token.mark, "empty 'admin_token': set it (from the environment: \"${PARLEY_ADMIN_TOKEN}\") or leave the key out"))
        }
        guard let listen = http.listen else {
            if let token = http.adminToken { errors.append(source.error(at: token.mark, "'admin_token' without 'listen': add listen: 127.0.0.1:8080")) }
            return errors + WebDoorValidator.validateShape(http, source: source)
        }
        errors += WebDoorValidator.validateShape(http, source: source)
        if let error = ValueCheck.listenAddress(listen, in: source) { return errors + [error] }
        if let address = try? ListenAddress.parse(listen.value).get(), !address.isLoopback, http.adminToken == nil {
            errors.append(source.error(at: listen.mark, "'http.listen' \(listen.value) is reachable from other machines: set 'admin_token' too, or listen on 127.0.0.1"))
        }
        return errors
    }
}

extension BotValidator {
    /// `a, b or c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1, let last = items.last else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + last
    }
}
