import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Testing

/// Failed recipients listed with their error, and retried as a new job that reaches exactly
/// them, each once.
@Suite struct BroadcastRetryFailedTests {
    /// 1,000 recipients of whom 10 (u990…u999) do not exist on the hub yet.
    @Test func tenMissingRecipientsAreListedAndRetriedExactlyOnce() async throws {
        let fixture = try BroadcastFixture(users: 990)
        var recipients = BroadcastRecipients()
        try recipients.append(targets: BroadcastFixture.targets(0..<1_000))
        let message = try BroadcastMessage(text: "Hello {{recipient.name}}")
        let job = try fixture.service.create(id: "first", bot: "news", origin: "test", message: message, recipients: recipients,
                                             rate: Rate(count: 500, per: .seconds(1))).job
        let report = try await fixture.service.run(job.id, transport: fixture.transport)
        #expect(report.sent == 990 && report.failed == 10)

        let failures = try fixture.store.failures(job: "first")
        #expect(failures.map(\.channel) == (990..<1_000).map { Channel.person("u\($0)") })
        #expect(failures.allSatisfy { $0.code == "notFound" && $0.message == "no such user" && $0.attempts == 1 })

        for index in 990..<1_000 { try fixture.hub.addUser(Profile(id: "u\(index)", name: "User \(index)")) }
        let (retry, created) = try fixture.service.retryFailed("first", newID: "again")
        #expect(created)
        #expect(retry.id == "again" && retry.origin == "retry:first" && retry.total == 10 && retry.ratePerSecond == 500)
        let second = try await fixture.service.run("again", transport: fixture.transport)
        #expect(second.sent == 10 && second.failed == 0 && second.pending == 0)

        for index in 0..<1_000 {
            let messages = try fixture.messages(to: "u\(index)")
            guard messages.count == 1 else {
                Issue.record("u\(index) has \(messages.count) messages")
                break
            }
            #expect(messages[0].payload["text"]?.stringValue == "Hello User \(index)")
        }
        // The first job is left as it was; the retry of the retry has nobody to send to.
        #expect(try fixture.store.job("first")?.failed == 10)
        #expect(throws: BroadcastError(.noRecipients, "broadcast 'again' has no failed recipients to retry")) {
            try fixture.service.retryFailed("again")
        }
        // Started again under its id, the retry is found, not repeated.
        let (same, createdAgain) = try fixture.service.retryFailed("first", newID: "again")
        #expect(!createdAgain && same.sent == 10)
        _ = try await fixture.service.run("again", transport: fixture.transport)
        #expect(try fixture.messages(to: "u995").count == 1)
    }

    /// A job of a `broadcast:` action holds each recipient's own payload: the retry sends it.
    @Test func aRetryKeepsEachRecipientsOwnPayload() async throws {
        let fixture = try BroadcastFixture(users: 1)
        var recipients = BroadcastRecipients()
        try recipients.append(targets: ["user:u0", "user:late"])
        let payloads = [TextContent("for u0").encoded(), TextContent("for late").encoded()]
        let job = try fixture.service.create(bot: "news", origin: "action", message: BroadcastMessage(literal: payloads[0]),
                                             recipients: recipients, payloads: payloads).job
        _ = try await fixture.service.run(job.id, transport: fixture.transport)
        try fixture.hub.addUser(Profile(id: "late"))
        let retry = try fixture.service.retryFailed(job.id).job
        #expect(retry.id != job.id)
        _ = try await fixture.service.run(retry.id, transport: fixture.transport)
        #expect(try fixture.messages(to: "late").map { $0.payload["text"]?.stringValue } == ["for late"])
    }

    @Test func reasonsSplitIntoCodeAndMessage() {
        let cases = [("notFound: no such user", "notFound", "no such user"),
                     ("serverError after 3 attempts: down", "serverError", "after 3 attempts: down"),
                     ("rateLimited for 5m: slow down", "rateLimited", "for 5m: slow down"),
                     ("odd", "odd", "")]
        for (reason, code, message) in cases {
            let failure = BroadcastFailure(position: 0, channel: .person("a"), reason: reason, attempts: 1)
            #expect(failure.code == code && failure.message == message, "\(reason)")
        }
    }

    @Test func anUnknownJobCannotBeRetried() throws {
        let fixture = try BroadcastFixture(users: 0)
        #expect(throws: BroadcastError(.unknownJob, "no broadcast with id 'nope'")) { try fixture.service.retryFailed("nope") }
    }
}
