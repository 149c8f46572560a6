import ParleyCore
import Synchronization

/// A real provider (a static directory) that records each call it gets; with `failure`, each
/// call fails with it after being recorded.
final class CountingProvider: ProfileProvider {
    let base: StaticProfileProvider
    let maxBatchSize: Int
    let failure: ParleyError?
    let calls = Mutex<[[String]]>([])

    init(_ profiles: [Profile], maxBatchSize: Int = 100, failure: ParleyError? = nil) {
        base = StaticProfileProvider(profiles)
        self.maxBatchSize = maxBatchSize
        self.failure = failure
    }

    func fetchProfiles(_ ids: [String]) async throws -> [Profile] {
        calls.withLock { $0.append(ids) }
        if let failure { throw failure }
        return try await base.fetchProfiles(ids)
    }

    /// The ids of every call so far.
    var recorded: [[String]] { calls.withLock { $0 } }
}
