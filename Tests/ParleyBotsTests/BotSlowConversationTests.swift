import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Synchronization
import Testing
import ParleyTesting

/// A conversation whose handler waits long (here a profile fetch held open) holds up
/// neither the other conversations nor the receiving of later messages, and its own later
/// messages wait behind it in order.
@Suite struct BotSlowConversationTests {
    /// A profile provider whose fetch for `held` waits until `open()` (the profile service
    /// runs one fetch per id at a time).
    final class HeldProfiles: ProfileProvider {
        private struct State {
            var opened = false
            var waiter: CheckedContinuation<Void, Never>?
        }

        let held: String
        private let state = Mutex(State())

        init(holding held: String) { self.held = held }

        /// Whether the fetch of `held` waits now.
        var isWaiting: Bool { state.withLock { $0.waiter != nil } }

        func open() {
            state.withLock { state in
                state.opened = true
                return state.waiter.take()
            }?.resume()
        }

        func fetchProfiles(_ ids: [String]) async throws -> [Profile] {
            if ids.contains(held) {
                await withCheckedContinuation { continuation in
                    let wait = state.withLock { state in
                        if !state.opened { state.waiter = continuation }
                        return !state.opened
                    }
                    if !wait { continuation.resume() }
                }
            }
            return ids.map { Profile(id: $0, name: $0.capitalized) }
        }
    }

    @Test func aConversationThatWaitsHoldsUpNeitherOthersNorItsOrder() async throws {
        let fixture = try BotFixture(yaml: BotBacklogTests.echo)
        let profiles = HeldProfiles(holding: "bob")
        let logger = BotLogger(level: .warn, sink: { _ in })
        let host = BotHost(store: MemoryBotStore(), clock: fixture.clock, logger: logger)
        let transport = try fixture.hub.connect(user: fixture.bot.id)
        try host.add(fixture.bot, connection: BotConnection(transport: transport, deliveredEventCount: { transport.deliveredEventCount },
                                                            profileProvider: profiles))
        #expect(await host.start() == [fixture.bot.id])
        let bob = try await fixture.client("bob"), alice = try await fixture.client("alice")
        _ = try await bob.send(TextContent("/echo b1"), to: .person("support"))
        _ = try await bob.send(TextContent("/echo b2"), to: .person("support"))
        // Bob's first message now waits for his profile (his second is queued behind it).
        try await withTimeout("bob's profile fetch") {
            while !profiles.isWaiting { try Task.checkCancellation(); await Task.yield() }
        }
        _ = try await alice.send(TextContent("/echo a1"), to: .person("support"))
        try await withTimeout("alice's answer") {
            while try fixture.hub.messages(in: .person("support"), seenBy: "alice").count < 2 { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(try fixture.botTexts(seenBy: "alice") == ["a1"])
        #expect(try fixture.botTexts(seenBy: "bob").isEmpty)
        profiles.open()
        try await withTimeout("waitUntilIdle") { await host.waitUntilIdle() }
        #expect(try fixture.botTexts(seenBy: "bob") == ["b1", "b2"])
        await host.stop()
        await fixture.shutdown()
    }
}
