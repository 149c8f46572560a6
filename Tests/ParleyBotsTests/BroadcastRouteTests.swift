import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Testing
import ParleyTesting

/// A bot's broadcast goes through its client's outbox at broadcast priority: an answer to a
/// user waits for no broadcast message queued before it.
@Suite struct BroadcastRouteTests {
    /// Every wait is bounded (it throws when it times out).
    private func wait(_ body: @escaping @Sendable () async -> Void) async throws {
        try await withTimeout("the awaited step", seconds: 10, body)
    }

    @Test func aBotsAnswerOvertakesItsRunningBroadcast() async throws {
        let clock = ManualClock()
        let fixture = try BroadcastFixture(users: 5, clock: clock)
        let limits = RateLimits(perAccount: TokenBucket.Rate(perSecond: 1, burst: 1))
        let client = try ChatClient(transport: fixture.transport,
                                    configuration: ChatClientConfiguration(clock: clock, outbox: Outbox.Configuration(rateLimits: limits)))
        try await client.connect()
        var recipients = BroadcastRecipients()
        try recipients.append(targets: BroadcastFixture.targets(1..<5), source: "test")
        let job = try fixture.service.create(id: "news", bot: "news", origin: "test", message: try BroadcastMessage(text: "news"),
                                             recipients: recipients).job
        let run = Task { try await fixture.service.run(job.id, route: .client(client)) }
        // One news message goes at once (a burst of one), three wait for the account's tokens.
        try await wait { while !Task.isCancelled, await client.queuedSends < 3 { await Task.yield() } }
        let answer = Task { try await client.send(TextContent("answer"), to: .person("u0"), options: .interactive) }
        try await wait { while !Task.isCancelled, await client.queuedSends < 4 { await Task.yield() } }
        for _ in 0..<4 {
            try await wait { await clock.waitForSleepers(1) }
            await clock.advance(by: .seconds(1))
        }
        try await wait { _ = try? await answer.value; _ = try? await run.value }
        let answered = try await answer.value
        let report = try await run.value
        #expect(report.sent == 4)
        let newsTimes = try (1..<5).flatMap { try fixture.messages(to: "u\($0)").map(\.timestamp) }.sorted()
        #expect(newsTimes.count == 4)
        // The answer went right after the first news message, before the three queued ones.
        #expect(newsTimes[0] < answered.timestamp)
        #expect(newsTimes.dropFirst().allSatisfy { $0 > answered.timestamp }, "\(newsTimes) vs \(answered.timestamp)")
        await client.close()
    }
}
