import Foundation
import ParleyCore
import ParleyHub
import Testing

@Suite struct HubRateLimitTests {
    @Test(arguments: Storage.allCases)
    func tokenBucketAnswersWithRetryAfter(storage: Storage) async throws {
        let limit = HubRateLimit(messagesPerSecond: 2, burst: 3)
        let fixture = try HubFixture(storage, configuration: HubConfiguration(rateLimit: limit))
        let alice = try fixture.hub.connect(user: "alice")
        let bob = try fixture.hub.connect(user: "bob")
        for _ in 0..<3 { _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("x"))) }

        let refused = OutgoingEnvelope(channel: .person("bob"), payload: text("too fast"))
        let error = await #expect(throws: ParleyError.self) { try await alice.send(refused) }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == .milliseconds(500))
        #expect(try fixture.hub.storedCount(of: refused.clientMessageID) == 0)
        // Per user: bob still has his own burst.
        _ = try await bob.send(OutgoingEnvelope(channel: .person("alice"), payload: text("me too")))

        await fixture.clock.advance(by: .milliseconds(500))
        let accepted = try await alice.send(refused)
        #expect(accepted.seq == 5)
        // A resend of something stored is answered without spending a token.
        #expect(try await alice.send(refused) == accepted)
    }

    @Test func perUserOverrideAndClear() async throws {
        let fixture = try HubFixture(.memory)
        let alice = try fixture.hub.connect(user: "alice")
        fixture.hub.setRateLimit(HubRateLimit(messagesPerSecond: 0.5, burst: 1), for: "alice")
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("1")))
        let error = await #expect(throws: ParleyError.self) {
            try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("2")))
        }
        #expect(error?.retryAfter == .seconds(2))
        fixture.hub.setRateLimit(nil, for: "alice")
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("3")))
    }
}
