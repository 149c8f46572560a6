import Foundation
import Synchronization

/// Profiles with a cache: entries expire after `expiry`, can be invalidated, are fetched at
/// most `maxBatchSize` ids per provider call, and concurrent requests for the same id share
/// one fetch. A preview (name and avatar carried in a message) stands in until the full
/// profile is fetched. Profiles and previews are each kept for at most `limit` ids (the
/// oldest fetched forgotten first), so a host that meets a million users holds a bounded
/// cache, not a million profiles.
public actor ProfileService {
    struct Entry {
        /// Nil when the provider does not know the id (cached too, so it is not asked again).
        var profile: Profile?
        var fetchedAt: Date
    }

    /// Where profiles come from.
    public let provider: any ProfileProvider
    /// The time source for expiry.
    public let clock: any ParleyClock
    /// How long a fetched profile is fresh.
    public let expiry: Duration
    /// Profiles (and, apart, previews) kept at most.
    public let limit: Int
    private var cache: BoundedDictionary<String, Entry>
    private var inFlight: [String: Task<[String: Profile], any Error>] = [:]
    private var generation = 0
    private nonisolated let previews: Mutex<BoundedDictionary<String, Profile>>
    /// The known profiles of `cache`, readable without a hop onto the actor (a bot asks
    /// for the sender's name on every message).
    private nonisolated let known: Mutex<BoundedDictionary<String, Profile>>

    /// The default `limit`.
    public static let defaultLimit = 10_000

    /// A service with an empty cache.
    public init(provider: any ProfileProvider, clock: any ParleyClock = SystemClock(), expiry: Duration = .seconds(600),
                limit: Int = ProfileService.defaultLimit) {
        self.provider = provider
        self.clock = clock
        self.expiry = expiry
        self.limit = max(1, limit)
        cache = BoundedDictionary(capacity: limit)
        previews = Mutex(BoundedDictionary(capacity: limit))
        known = Mutex(BoundedDictionary(capacity: limit))
    }

    /// One profile: from the cache, or fetched. Nil if the provider does not know the id.
    public func profile(of id: String) async throws -> Profile? {
        try await profiles(of: [id])[id]
    }

    /// Profiles of `ids` (unknown ids are left out). Missing ones are fetched in batches of at
    /// most `provider.maxBatchSize`, joining fetches already running for the same ids.
    public func profiles(of ids: [String]) async throws -> [String: Profile] {
        let now = clock.now()
        var result: [String: Profile] = [:]
        var missing: [String] = []
        var waits: [Task<[String: Profile], any Error>] = []
        var seen: Set<String> = []
        for id in ids where seen.insert(id).inserted {
            if let entry = cache[id], !isExpired(entry, now: now) {
                if let profile = entry.profile { result[id] = profile }
            } else if let task = inFlight[id] {
                waits.append(task)
            } else {
                missing.append(id)
            }
        }
        let batchSize = max(1, provider.maxBatchSize)
        for start in stride(from: 0, to: missing.count, by: batchSize) {
            let chunk = Array(missing[start..<min(start + batchSize, missing.count)])
            let task = startFetch(chunk)
            waits.append(task)
        }
        for task in waits {
            let fetched = try await task.value
            for id in ids { if let profile = fetched[id] { result[id] = profile } }
        }
        return result
    }

    private func startFetch(_ ids: [String]) -> Task<[String: Profile], any Error> {
        let provider = self.provider
        let generation = self.generation
        let task = Task<[String: Profile], any Error> {
            do {
                let profiles = try await provider.fetchProfiles(ids)
                let byID = Dictionary(profiles.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
                self.store(ids, byID, generation: generation)
                return byID
            } catch {
                self.forget(ids, generation: generation)
                throw error
            }
        }
        for id in ids { inFlight[id] = task }
        return task
    }

    private func store(_ ids: [String], _ profiles: [String: Profile], generation: Int) {
        for id in ids { inFlight.removeValue(forKey: id) }
        // An invalidation while the fetch ran makes its answer stale: do not cache it.
        guard generation == self.generation else { return }
        let now = clock.now()
        for id in ids { cache.set(Entry(profile: profiles[id], fetchedAt: now), for: id) }
        known.withLock { known in
            for id in ids {
                if let profile = profiles[id] { known.set(profile, for: id) } else { known.removeValue(forKey: id) }
            }
        }
    }

    private func forget(_ ids: [String], generation: Int) {
        for id in ids { inFlight.removeValue(forKey: id) }
    }

    private func isExpired(_ entry: Entry, now: Date) -> Bool {
        now.timeIntervalSince(entry.fetchedAt) >= expiry.timeInterval
    }

    /// What is known without fetching: the full profile if cached (even if expired), else
    /// the preview carried in messages.
    public func cachedProfile(of id: String) -> Profile? {
        cache[id]?.profile ?? previews.withLock { $0[id] }
    }

    /// The same answer as `cachedProfile(of:)`, without waiting for the actor.
    public nonisolated func cachedProfileNow(of id: String) -> Profile? {
        known.withLock { $0[id] } ?? previews.withLock { $0[id] }
    }

    /// Notes the name and avatar a message carried for its sender. Cheap and synchronous, so
    /// the inbound path can call it per message.
    public nonisolated func notePreview(id: String, name: String?, avatar: String?) {
        guard name != nil || avatar != nil else { return }
        previews.withLock { previews in
            let current = previews[id]
            if current?.name == name && current?.avatar == avatar { return }
            previews.set(Profile(id: id, name: name, avatar: avatar), for: id)
        }
    }

    /// The preview of `id`, if a message carried one.
    public nonisolated func preview(of id: String) -> Profile? { previews.withLock { $0[id] } }

    /// Drops one cached profile (the next lookup fetches it).
    public func invalidate(_ id: String) {
        cache.removeValue(forKey: id)
        known.withLock { $0.removeValue(forKey: id) }
    }

    /// Drops every cached profile; fetches running now will not be cached.
    public func invalidateAll() {
        cache.removeAll()
        known.withLock { $0.removeAll() }
        generation += 1
    }

    /// How many profiles are cached (fresh or expired).
    public var cachedCount: Int { cache.count }
}
