import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Testing

@Suite struct BroadcastDeliveryTests {
    /// 10,000 recipients, 5 % of sends hit an injected fault (half failed sends, half lost
    /// receipts), 200 recipients do not exist, one group refuses the bot: every existing
    /// user ends with exactly one message, the rest are reported failed.
    @Test func tenThousandRecipientsWithFaultsExactlyOnce() async throws {
        let fixture = try BroadcastFixture(users: 9_800)
        try fixture.hub.addUser(Profile(id: "owner"))
        try fixture.hub.createGroup("staff", members: ["owner"])
        let faulty = FaultSpreadingTransport(base: fixture.transport, hub: fixture.hub, every: 20)
        var recipients = BroadcastRecipients()
        try recipients.append(targets: BroadcastFixture.targets(0..<10_000) + ["group:staff"])
        let message = try BroadcastMessage(text: "Hello {{recipient.name}}")
        let (job, created) = try fixture.service.create(bot: "news", origin: "test", message: message, recipients: recipients)
        #expect(created && job.total == 10_001 && job.pending == 10_001)

        let report = try await fixture.service.run(job.id, transport: faulty)

        #expect(faulty.injected >= 500)
        #expect(report.sent == 9_800)
        #expect(report.failed == 201)
        #expect(report.pending == 0)
        for index in 0..<9_800 {
            let messages = try fixture.messages(to: "u\(index)")
            guard messages.count == 1 else {
                Issue.record("u\(index) has \(messages.count) messages")
                break
            }
            #expect(messages[0].payload["text"]?.stringValue == "Hello User \(index)")
            #expect(messages[0].clientMessageID == BroadcastUUID.message(job: job.id, target: "user:u\(index)"))
        }
        let outcomes = try fixture.store.recipients(job: job.id)
        let failed = outcomes.filter { if case .failed = $0.outcome { return true } else { return false } }
        #expect(Set(failed.map(\.channel)) == Set((9_800..<10_000).map { Channel.person("u\($0)") } + [.group("staff")]))
        #expect(failed.first { $0.channel == .group("staff") }?.outcome == .failed(reason: "permissionDenied: not a member of the group"))
        #expect(report.failureReasons.first?.reason == "notFound: no such user")
        #expect(try fixture.store.job(job.id)?.state == .finished)
    }

    @Test func transientFailuresGiveUpAfterTheAttemptLimit() async throws {
        let retry = RetryPolicy(initialDelay: .milliseconds(100), maxAttempts: 3)
        let fixture = try BroadcastFixture(users: 3, configuration: BroadcastConfiguration(retry: retry, random: { 0.5 }))
        fixture.hub.failSends(to: .person("u1"), with: ParleyError(.serverError, "down for u1"))
        var recipients = BroadcastRecipients()
        try recipients.append(targets: BroadcastFixture.targets(0..<3))
        let job = try fixture.service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: "hi"), recipients: recipients).job
        let report = try await fixture.service.run(job.id, transport: fixture.transport)
        #expect(report.sent == 2 && report.failed == 1)
        let u1 = try #require(try fixture.store.recipients(job: job.id).first { $0.channel == .person("u1") })
        #expect(u1.outcome == .failed(reason: "serverError after 3 attempts: down for u1"))
        #expect(u1.attempts == 3)
        // Backoff waited on the clock: 100 ms, then 200 ms.
        #expect(report.duration == .milliseconds(300))
    }

    @Test func jobRateIsKept() async throws {
        let fixture = try BroadcastFixture(users: 200)
        var recipients = BroadcastRecipients()
        try recipients.append(targets: BroadcastFixture.targets(0..<200))
        let job = try fixture.service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: "hi"), recipients: recipients,
                                             rate: Rate(count: 50, per: .seconds(1))).job
        let report = try await fixture.service.run(job.id, transport: fixture.transport)
        #expect(report.sent == 200)
        // A burst of 5 (a tenth of a second), then 195 at 50/s.
        #expect(report.duration == .milliseconds(3_900))
        let times = try (0..<200).map { try #require(try fixture.messages(to: "u\($0)").first).timestamp.timeIntervalSince1970 }.sorted()
        for (start, end) in zip(times, times.dropFirst(55)) { #expect(end - start >= 1.0) }
    }

    @Test func globalCapIsShared() async throws {
        let limiter = RateLimiter(rate: TokenBucket.Rate(perSecond: 20))
        let fixture = try BroadcastFixture(users: 100, configuration: BroadcastConfiguration(globalLimit: limiter, random: { 0.5 }))
        var first = BroadcastRecipients(), second = BroadcastRecipients()
        try first.append(targets: BroadcastFixture.targets(0..<50))
        try second.append(targets: BroadcastFixture.targets(50..<100))
        let message = try BroadcastMessage(text: "hi")
        let a = try fixture.service.create(id: "a", bot: "news", origin: "test", message: message, recipients: first).job
        let b = try fixture.service.create(id: "b", bot: "news", origin: "test", message: message, recipients: second).job
        let reportA = try await fixture.service.run(a.id, transport: fixture.transport)
        let reportB = try await fixture.service.run(b.id, transport: fixture.transport)
        // 20 at once, then 20/s for the other 80 across both jobs.
        #expect(reportA.duration == .milliseconds(1_500))
        #expect(reportB.duration == .milliseconds(2_500))
    }

    @Test func creatingAgainFindsTheJobAndRunningAgainSendsNothingTwice() async throws {
        let fixture = try BroadcastFixture(users: 5)
        var recipients = BroadcastRecipients()
        try recipients.append(targets: BroadcastFixture.targets(0..<5))
        let message = try BroadcastMessage(text: "hi")
        #expect(try fixture.service.create(id: "once", bot: "news", origin: "test", message: message, recipients: recipients).created)
        #expect(try !fixture.service.create(id: "once", bot: "news", origin: "test", message: message, recipients: recipients).created)
        _ = try await fixture.service.run("once", transport: fixture.transport)
        let again = try await fixture.service.run("once", transport: fixture.transport)
        #expect(again.sentThisRun == 0 && again.sent == 5)
        for index in 0..<5 { #expect(try fixture.messages(to: "u\(index)").count == 1) }
    }

    @Test func emptyAudienceAndUnknownJobAreErrors() async throws {
        let fixture = try BroadcastFixture(users: 0)
        let empty = #expect(throws: BroadcastError.self) {
            try fixture.service.create(id: "x", bot: "news", origin: "test", message: try BroadcastMessage(text: "hi"), recipients: BroadcastRecipients())
        }
        #expect(empty?.code == .noRecipients)
        await #expect(throws: BroadcastError(.unknownJob, "no broadcast with id 'nope'")) {
            try await fixture.service.run("nope", transport: fixture.transport)
        }
    }
}
