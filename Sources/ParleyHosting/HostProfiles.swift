import ParleyBots
import ParleyCore

/// Where user profiles come from for every transport: `profiles.directory` (a YAML file) or
/// `profiles.url` (an HTTP endpoint), cached for `profiles.expire`. A transport that has
/// profiles of its own (a homeserver's display names) falls back to them for ids the
/// config's source does not know.
public struct HostProfiles: Sendable {
    /// The directory's entries (empty without one).
    public var entries: [Profile]
    /// The config's source; nil: the transport's own profiles.
    public var provider: (any ProfileProvider)?
    /// `profiles.expire`; nil: the client's default.
    public var expiry: Duration?

    /// No profiles configured.
    public init() {
        entries = []
    }

    /// The profiles of a loaded catalog (its directory is read already).
    /// - Throws: `ParleyError(.invalidArgument)` for a `profiles.url` that is no URL template
    ///   (validation reports it first).
    public init(catalog: HostCatalog) throws {
        entries = (catalog.profiles?.entries ?? []).map { $0.value.profile(id: $0.name) }
        if let url = catalog.config?.profiles?.url?.value {
            provider = try HTTPProfileProvider(urlTemplate: url)
        } else if !entries.isEmpty {
            provider = StaticProfileProvider(entries)
        }
        expiry = catalog.config?.profiles?.expire.flatMap { try? DurationFormat.parse($0.value) }
    }

    /// The provider a bot's client uses on `transport`: the config's source first, then the
    /// transport's own profiles for the ids it lacks.
    public func provider(over transport: any Transport) -> (any ProfileProvider)? {
        guard let provider else { return nil }
        return FallbackProfileProvider(primary: provider, fallback: TransportProfileProvider(transport: transport))
    }

    /// A bot's connection on `transport`, with these profiles and `storage`.
    public func connection(_ transport: any Transport, storage: ChatStorage,
                           deliveredEventCount: (@Sendable () -> Int)? = nil) -> BotConnection {
        BotConnection(transport: transport, deliveredEventCount: deliveredEventCount, storage: storage,
                      profileProvider: provider(over: transport), profileExpiry: expiry)
    }
}
