import Foundation
@testable import ParleyHosting
import ParleyTesting
import Testing

/// The console's sessions on a virtual clock (they end after 12 h unused), the change signal
/// its event streams wait on, and the conversations they share.
@Suite struct ConsoleSessionTests {
    static let nina = ConsoleAgent(id: "nina", token: "nina-token-0123456789", queues: ["agents"])

    @Test func aSessionEndsAfterTwelveHoursUnusedAndUseKeepsItAlive() async throws {
        let clock = ManualClock()
        let sessions = ConsoleSessions(clock: clock, changes: HostChangeSignal())
        let (secret, session) = sessions.open(for: Self.nina)
        #expect(secret.count == 43 && session.csrf.count == 43 && secret != session.csrf)
        #expect(sessions.use(secret)?.agent == Self.nina)
        await clock.advance(by: .seconds(12 * 3600 - 1))
        #expect(sessions.isLive(secret))
        #expect(sessions.use(secret)?.csrf == session.csrf)
        // Looking does not count as use: only requests do.
        await clock.advance(by: .seconds(12 * 3600 - 1))
        #expect(sessions.isLive(secret))
        await clock.advance(by: .seconds(1))
        #expect(!sessions.isLive(secret))
        #expect(sessions.use(secret) == nil)
        #expect(sessions.use("unknown") == nil)
    }

    @Test func signingOutEndsTheSessionAndWakesTheStreams() async throws {
        let changes = HostChangeSignal()
        let sessions = ConsoleSessions(clock: ManualClock(), changes: changes)
        let (secret, _) = sessions.open(for: Self.nina)
        let seen = changes.generation
        sessions.close(secret)
        #expect(!sessions.isLive(secret))
        #expect(changes.generation != seen)
    }

    @Test func anAgentKeepsAtMostSixteenSessionsTheLeastRecentlyUsedGoes() async throws {
        let clock = ManualClock()
        let sessions = ConsoleSessions(clock: clock, changes: HostChangeSignal())
        var secrets: [String] = []
        for _ in 0..<ConsoleSessions.perAgent {
            secrets.append(sessions.open(for: Self.nina).secret)
            await clock.advance(by: .seconds(1))
        }
        _ = sessions.use(secrets[0])
        let omar = sessions.open(for: ConsoleAgent(id: "omar", token: "omar-token-0123456789", queues: []))
        let newest = sessions.open(for: Self.nina)
        #expect(secrets.filter { sessions.isLive($0) }.count == ConsoleSessions.perAgent - 1)
        #expect(!sessions.isLive(secrets[1]) && sessions.isLive(secrets[0]))
        #expect(sessions.isLive(newest.secret) && sessions.isLive(omar.secret))
    }

    @Test func secretsAreBase64URLOf32RandomBytes() {
        #expect(SessionSecret.base64url([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(SessionSecret.base64url(Array("Man".utf8) + [0x4d]) == "TWFuTQ")
        let secrets = Set((0..<100).map { _ in SessionSecret.make() })
        #expect(secrets.count == 100 && secrets.allSatisfy { $0.count == 43 && !$0.contains("=") })
    }

    @Test func aWaitEndsAtAChangeAfterWhatWasSeenAtItsTimeoutOrWhenCancelled() async throws {
        let signal = HostChangeSignal()
        // A change between the reading and the wait is not missed.
        let seen = signal.generation
        signal.notify()
        try await withTimeout("a change already made", seconds: 10) { await signal.wait(after: seen, timeout: .seconds(60)) }
        // A waiter parked (or about to park) wakes at the next change.
        let now = signal.generation
        let waiter = Task { await signal.wait(after: now, timeout: .seconds(60)) }
        signal.notify()
        try await withTimeout("a waiter woken", seconds: 10) { await waiter.value }
        // Nothing changes: the timeout ends the wait.
        let quiet = signal.generation
        try await withTimeout("the timeout", seconds: 10) { await signal.wait(after: quiet, timeout: .milliseconds(20)) }
        // Cancelled: it ends at once.
        let cancelled = Task { await signal.wait(after: quiet, timeout: .seconds(60)) }
        cancelled.cancel()
        try await withTimeout("a cancelled wait", seconds: 10) { await cancelled.value }
    }

    /// Entries are kept per change: a reader that saw the same generation gets what was read
    /// (even if, as here, the test changed the conversation behind the signal's back by asking
    /// with an old generation), one that saw a newer one reads again.
    @Test func theConversationCacheReadsOncePerGeneration() async throws {
        let (running, alice) = try await HostMetricsTests.host()
        try await HostMetricsTests.say("/human", alice, running)
        let ticket = try #require(try running.host.ticket(queue: "agents", number: 1))
        let cache = ConversationCache()
        let before = running.changes.generation
        let first = await cache.messages(of: ticket, limit: 20, generation: before, host: running.host)
        #expect(first?.map(\.text) == ["/human"])
        try await HostMetricsTests.say("Hello?", alice, running)
        #expect(running.changes.generation > before)
        #expect(await cache.messages(of: ticket, limit: 20, generation: before, host: running.host) == first)
        let now = running.changes.generation
        let fresh = await cache.messages(of: ticket, limit: 20, generation: now, host: running.host)
        // Her line, then the bot telling her her place in the queue.
        #expect(fresh?.map(\.text).prefix(2) == ["/human", "Hello?"] && fresh?.last?.from == .bot)
        // The older generation's entries went with the newer reading.
        #expect(await cache.messages(of: ticket, limit: 20, generation: before, host: running.host) == fresh)
        await alice.close()
        await running.shutdown()
    }
}
