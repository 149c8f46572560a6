import Foundation
import Testing
@testable import ParleyBots

@Suite struct BroadcastUUIDTests {
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func sha1KnownAnswers(input: String, digest: String) {
        let hex = BroadcastSHA1.hash(Array(input.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(hex == digest)
    }

    @Test func sha1OfAMillionAs() {
        let hex = BroadcastSHA1.hash(Array(repeating: UInt8(ascii: "a"), count: 1_000_000)).map { String(format: "%02x", $0) }.joined()
        #expect(hex == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func version5MatchesTheRFCExample() throws {
        let dns = try #require(UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
        #expect(BroadcastUUID.v5(namespace: dns, name: "www.example.com").uuidString.lowercased() == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
    }

    @Test func messageNumbersDependOnJobAndRecipientOnly() {
        let first = BroadcastUUID.message(job: "j1", target: "user:alice")
        #expect(first == BroadcastUUID.message(job: "j1", target: "user:alice"))
        #expect(first != BroadcastUUID.message(job: "j2", target: "user:alice"))
        #expect(first != BroadcastUUID.message(job: "j1", target: "user:bob"))
        // The separator keeps "a"+"bc" and "ab"+"c" apart.
        #expect(BroadcastUUID.message(job: "a", target: "bc") != BroadcastUUID.message(job: "ab", target: "c"))
        let ids = Set((0..<10_000).map { BroadcastUUID.message(job: "j1", target: "user:u\($0)") })
        #expect(ids.count == 10_000)
    }

    @Test func scheduledJobIDsDependOnTheRun() {
        let nine = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(BroadcastUUID.scheduledJob(bot: "news", schedule: "morning", fire: nine)
                == BroadcastUUID.scheduledJob(bot: "news", schedule: "morning", fire: nine.addingTimeInterval(0.4)))
        #expect(BroadcastUUID.scheduledJob(bot: "news", schedule: "morning", fire: nine)
                != BroadcastUUID.scheduledJob(bot: "news", schedule: "morning", fire: nine.addingTimeInterval(86_400)))
    }
}
