import ParleyBots
import ParleyCore
import Synchronization
import Testing

/// `profiles.expire`: how long a bot uses a fetched profile before it asks again.
@Suite struct BotProfileExpiryTests {
    @Test(arguments: [(Duration?.some(.seconds(1)), 2), (nil, 1)])
    func aVCardsProfileIsFetchedAgainOnlyAfterTheExpiry(expiry: Duration?, fetchesAfterASecond: Int) async throws {
        let provider = CountingProfiles(BotFixture.people)
        let fixture = try BotFixture()
        try await fixture.start { connection in
            connection.profileProvider = provider
            connection.profileExpiry = expiry
        }
        try await fixture.say("/card bob")
        #expect(provider.fetches(of: "bob") == 1)
        try await fixture.advance(.milliseconds(900))
        try await fixture.say("/card bob")
        #expect(provider.fetches(of: "bob") == 1, "within the expiry the cache answers")
        try await fixture.advance(.milliseconds(200))
        try await fixture.say("/card bob")
        #expect(provider.fetches(of: "bob") == fetchesAfterASecond)
        let cards = try fixture.newMessages().compactMap { $0.content as? VCardContent }
        #expect(cards == Array(repeating: VCardContent(user: "bob", name: "Bob Stone", phone: "+49 30 1234567"), count: 3))
        await fixture.shutdown()
    }
}

/// A fixed directory that counts how often each id is fetched.
final class CountingProfiles: ProfileProvider {
    private let base: StaticProfileProvider
    private let counts = Mutex<[String: Int]>([:])

    init(_ profiles: [Profile]) { base = StaticProfileProvider(profiles) }

    func fetchProfiles(_ ids: [String]) async throws -> [Profile] {
        counts.withLock { counts in for id in ids { counts[id, default: 0] += 1 } }
        return try await base.fetchProfiles(ids)
    }

    func fetches(of id: String) -> Int { counts.withLock { $0[id] ?? 0 } }
}
