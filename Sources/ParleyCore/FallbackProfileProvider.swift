/// Profiles from a primary source (a directory, a CRM), and from a fallback (usually the
/// server's own, `TransportProfileProvider`) for the ids the primary does not know.
///
/// Failures: if the primary fails, the lookup fails (nothing is lost, and `ProfileService`
/// caches nothing, so the next lookup asks again). If only the fallback fails, the primary's
/// profiles are returned and the rest are left out as unknown: `ProfileService` then counts
/// them unknown until its entries expire, which beats throwing away what the primary said.
/// `onFallbackFailure` hears of such an error, since the answer itself no longer shows it.
public struct FallbackProfileProvider: ProfileProvider {
    /// Asked first, for every id.
    public let primary: any ProfileProvider
    /// Asked only for the ids the primary did not return.
    public let fallback: any ProfileProvider
    private let onFallbackFailure: (@Sendable (any Error) -> Void)?

    /// A provider asking `primary`, then `fallback` for what is missing.
    public init(primary: any ProfileProvider, fallback: any ProfileProvider,
                onFallbackFailure: (@Sendable (any Error) -> Void)? = nil) {
        self.primary = primary
        self.fallback = fallback
        self.onFallbackFailure = onFallbackFailure
    }

    /// The smaller of the two: a full batch may go to either.
    public var maxBatchSize: Int { max(1, min(primary.maxBatchSize, fallback.maxBatchSize)) }

    /// Profiles in the order of `ids` (each id once; unknown ids left out). A caller passing
    /// more than `maxBatchSize` ids still gets each provider asked within its own limit.
    public func fetchProfiles(_ ids: [String]) async throws -> [Profile] {
        var seen: Set<String> = []
        let wanted = ids.filter { seen.insert($0).inserted }
        var found = try await Self.fetch(wanted, from: primary)
        let missing = wanted.filter { found[$0] == nil }
        if !missing.isEmpty {
            do {
                found.merge(try await Self.fetch(missing, from: fallback)) { primary, _ in primary }
            } catch let error as CancellationError {
                throw error
            } catch {
                onFallbackFailure?(error)
            }
        }
        return wanted.compactMap { found[$0] }
    }

    /// `ids` from `provider`, at most its `maxBatchSize` per call; only profiles of ids asked for.
    private static func fetch(_ ids: [String], from provider: any ProfileProvider) async throws -> [String: Profile] {
        let size = max(1, provider.maxBatchSize)
        let asked = Set(ids)
        var found: [String: Profile] = [:]
        for start in stride(from: 0, to: ids.count, by: size) {
            for profile in try await provider.fetchProfiles(Array(ids[start..<min(start + size, ids.count)]))
            where asked.contains(profile.id) {
                found[profile.id] = profile
            }
        }
        return found
    }
}
