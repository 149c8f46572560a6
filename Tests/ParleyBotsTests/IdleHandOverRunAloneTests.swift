import Foundation
@testable import ParleyBots
import ParleyCore
import ParleyHub
import ParleyTesting
import Synchronization
import Testing
import YAMLCoding

/// `waitUntilIdle` must not come back while a message the bot's client has taken is still on
/// its way to the bot: taken (the server's count is met) but not yet queued as work (nothing
/// counted in flight). Its hand-over is held by blocking a pool thread, so the suite runs in
/// its own run (`RunAloneTests`). A Matrix flow test showed it rarely: "nothing once the bot was idle"
/// with the bot's "handled" logged just after.
@Suite(.enabled(if: RunAloneTests.enabled, "blocks a pool thread: run with PARLEY_RUN_ALONE_TESTS=1 --filter RunAloneTests"))
struct IdleHandOverRunAloneTests {
    /// Holds the hand-over of a received message to the bot (`received` is called on the bot's
    /// actor, before the message is queued as work) while armed; never longer than 10 s.
    final class HeldHandOver: BotActivityObserver {
        private let armed = Mutex(false)
        private let holding = Mutex(false)
        private let gate = DispatchSemaphore(value: 0)

        var isHolding: Bool { holding.withLock { $0 } }
        func arm() { armed.withLock { $0 = true } }
        func open() { gate.signal() }

        func received(bot: String) {
            guard armed.withLock({ state in defer { state = false }; return state }) else { return }
            holding.withLock { $0 = true }
            _ = gate.wait(timeout: .now() + 10)
        }

        func connection(bot: String, _ state: ConnectionState) {}
        func sent(bot: String) {}
        func answered(bot: String, latency: Duration) {}
        func sendFailed(bot: String, _ error: ParleyError) {}
        func rateLimited(bot: String) {}
    }

    @Test func idleWaitsForAMessageTakenButNotYetHandedToTheBot() async throws {
        // Two bots on one host (one count of work in flight): bob's message to `desk` waits for
        // his profile; alice's to `support` is taken and its hand-over held.
        let fixture = try BotFixture(yaml: BotBacklogTests.echo)
        let deskText = BotBacklogTests.echo.replacingOccurrences(of: "id: support", with: "id: desk")
        let desk = try CompiledBot(id: "desk", definition: try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: deskText, file: "desk.yaml"),
                                   file: "desk.yaml")
        try fixture.hub.addUser(Profile(id: "desk", name: "Desk"))
        let profiles = BotSlowConversationTests.HeldProfiles(holding: "bob")
        let handOver = HeldHandOver()
        let host = BotHost(store: MemoryBotStore(), clock: fixture.clock, logger: BotLogger(level: .warn, sink: { _ in }),
                           options: BotHostOptions(activity: handOver))
        for (bot, profileProvider) in [(fixture.bot, nil), (desk, profiles as (any ProfileProvider)?)] {
            let transport = try fixture.hub.connect(user: bot.id)
            try host.add(bot, connection: BotConnection(transport: transport, deliveredEventCount: { transport.deliveredEventCount },
                                                        profileProvider: profileProvider))
        }
        #expect(await host.start().sorted() == ["desk", "support"])
        let alice = try await fixture.client("alice"), bob = try await fixture.client("bob")
        _ = try await bob.send(TextContent("/echo b1"), to: .person("desk"))
        try await withTimeout("bob's profile fetch") {
            while !profiles.isWaiting { try Task.checkCancellation(); await Task.yield() }
        }
        // The idle check starts while bob's message is in flight.
        let returned = Mutex(false)
        let idle = Task {
            await host.waitUntilIdle()
            returned.withLock { $0 = true }
        }
        handOver.arm()
        _ = try await alice.send(TextContent("/echo a1"), to: .person("support"))
        try await withTimeout("the hand-over held") {
            while !handOver.isHolding { try Task.checkCancellation(); await Task.yield() }
        }
        // Bob's message is answered: nothing is counted in flight, and the server's counts are met.
        profiles.open()
        // Bounded: the idle check must still be waiting for alice's message.
        var early = false
        for _ in 0..<40 where !early {
            try await Task.sleep(for: .milliseconds(50))
            early = returned.withLock { $0 }
        }
        #expect(!early, "idle came back while alice's message was taken and not yet handed to the bot")
        handOver.open()
        try await withTimeout("idle") { await idle.value }
        #expect(try fixture.botTexts(seenBy: "alice") == ["a1"])
        await host.stop()
        await fixture.shutdown()
    }
}
