import Foundation
import Synchronization
import Testing
import ParleyCore
import ParleyHub
import ParleyTesting

@Suite struct OutboxTests {
    static func message(_ text: String, to channel: Channel = .person("bob"), priority: SendPriority = .normal) -> OutboxItem {
        OutboxItem(operation: .message(OutgoingEnvelope(channel: channel, payload: TextContent(text).encoded())), priority: priority)
    }

    static func texts(_ hub: Hub, _ channel: Channel, seenBy user: String) throws -> [String] {
        try hub.messages(in: channel, seenBy: user).compactMap { $0.payload["text"]?.stringValue }
    }

    @Test func rateLimitedTwiceIsDeliveredOnceAfterTheRetryAfter() async throws {
        let setup = try HubSetup()
        let transport = try setup.hub.connect(user: "alice")
        let outbox = Outbox(transport: transport, store: MemoryOutboxStore(), clock: setup.clock)
        try await outbox.start()
        setup.hub.failNextSends(2, with: ParleyError(.rateLimited, "slow down", retryAfter: .seconds(5)), from: "alice")
        let start = setup.clock.now()
        let item = Self.message("hello")
        let result = Task { await outbox.submit([item]) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob").isEmpty)
        await setup.clock.advance(by: .seconds(4.9))
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob").isEmpty, "retried before the retry-after")
        await setup.clock.advance(by: .seconds(0.1))
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        await setup.clock.advance(by: .seconds(5))
        let results = try await withTimeout { await result.value }
        let receipt = try results[0].get()
        #expect(receipt == .sent(try #require(try setup.hub.messages(in: .person("alice"), seenBy: "bob").first.map {
            SendReceipt(messageID: $0.id, seq: $0.seq, timestamp: $0.timestamp)
        })))
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob") == ["hello"])
        #expect(try setup.hub.storedCount(of: item.id) == 1)
        #expect(setup.clock.now().timeIntervalSince(start) == 10)
        await outbox.stop()
    }

    @Test func rateLimitsAreNotAttemptsButPatienceRunsOut() async throws {
        let setup = try HubSetup()
        let policy = RetryPolicy(maxAttempts: 2, rateLimitPatience: .seconds(10))
        let outbox = Outbox(transport: try setup.hub.connect(user: "alice"), store: MemoryOutboxStore(), clock: setup.clock,
                            configuration: Outbox.Configuration(retry: policy))
        try await outbox.start()
        // Five refusals, more than the two attempts allowed for other errors: still delivered.
        setup.hub.failNextSends(5, with: ParleyError(.rateLimited, "slow down", retryAfter: .seconds(1)), from: "alice")
        let patient = Task { await outbox.submit([Self.message("patient")]) }
        for _ in 0..<5 {
            try await withTimeout { await setup.clock.waitForSleepers(1) }
            await setup.clock.advance(by: .seconds(1))
        }
        _ = try await withTimeout { await patient.value }[0].get()
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob") == ["patient"])

        // Refused for longer than the patience: it fails with the server's answer.
        setup.hub.failNextSends(100, with: ParleyError(.rateLimited, "slow down", retryAfter: .seconds(3)), from: "alice")
        let hopeless = Task { await outbox.submit([Self.message("hopeless")]) }
        for _ in 0..<4 {
            try await withTimeout { await setup.clock.waitForSleepers(1) }
            await setup.clock.advance(by: .seconds(3))
        }
        let result = try await withTimeout { await hopeless.value }[0]
        #expect(throws: ParleyError.self) { try result.get() }
        if case .failure(let error) = result { #expect(error.code == .rateLimited) }
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob") == ["patient"])
        await outbox.stop()
    }

    @Test func aLostAcknowledgementIsResentWithoutDuplicating() async throws {
        let setup = try HubSetup()
        let outbox = Outbox(transport: try setup.hub.connect(user: "alice"), store: MemoryOutboxStore(), clock: setup.clock,
                            configuration: Outbox.Configuration(random: { 0.5 }))
        try await outbox.start()
        setup.hub.loseNextAcks(1, from: "alice")
        let item = Self.message("once")
        let result = Task { await outbox.submit([item]) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        await setup.clock.advance(by: .seconds(1))
        _ = try await withTimeout { await result.value }[0].get()
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob") == ["once"])
        #expect(try setup.hub.storedCount(of: item.id) == 1)
        await outbox.stop()
    }

    @Test func permanentErrorsFailAtOnceAndOthersInTheLaneContinue() async throws {
        let setup = try HubSetup()
        let outbox = Outbox(transport: try setup.hub.connect(user: "alice"), store: MemoryOutboxStore(), clock: setup.clock)
        try await outbox.start()
        setup.hub.failSends(to: .person("carol"), with: ParleyError(.permissionDenied, "blocked"))
        let results = try await withTimeout {
            await outbox.submit([Self.message("a", to: .person("carol")), Self.message("b", to: .person("bob"))])
        }
        #expect(throws: ParleyError(.permissionDenied, "blocked")) { try results[0].get() }
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob") == ["b"])
        #expect(setup.clock.sleeperCount == 0)
        await outbox.stop()
    }

    @Test(arguments: TestDatabase.kinds)
    func unsentRowsAreSentAfterARestart(database: TestDatabase) async throws {
        let setup = try HubSetup()
        let path = database.location("outbox")
        let transport = try setup.hub.connect(user: "alice")
        setup.hub.failSends(to: .person("bob"), with: ParleyError(.serverError, "down for maintenance"))
        let first = Outbox(transport: transport, store: try DatabaseOutboxStore(path: path), clock: setup.clock)
        try await first.start()
        let items = (1...3).map { Self.message("queued \($0)") }
        let abandoned = Task { await first.submit(items) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        await first.stop()
        let abandonedResults = try await withTimeout { await abandoned.value }
        for result in abandonedResults { #expect(throws: ParleyError.self) { try result.get() } }
        #expect(try DatabaseOutboxStore(path: path).pending().map(\.id) == items.map(\.id))

        setup.hub.failSends(to: .person("bob"), with: nil)
        let delivered = Mutex<[UUID]>([])
        let second = Outbox(transport: transport, store: try DatabaseOutboxStore(path: path), clock: setup.clock)
        await second.setOrphanHandler { item, result in
            if case .success = result { delivered.withLock { $0.append(item.id) } }
        }
        try await second.start()
        try await withTimeout {
            // Bounded: the recovered items are sent without any clock wait.
            while delivered.withLock({ $0.count }) < 3 { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(delivered.withLock { $0 } == items.map(\.id))
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob") == ["queued 1", "queued 2", "queued 3"])
        await second.stop()
        #expect(try DatabaseOutboxStore(path: path).pending().isEmpty)
    }

    @Test(arguments: TestDatabase.kinds)
    func storedRowsRoundTripEveryField(database: TestDatabase) throws {
        let path = database.location("outbox")
        let store = try DatabaseOutboxStore(path: path)
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        var message = OutboxItem(operation: .message(OutgoingEnvelope(
            channel: .group("team \"quoted\""), payload: ["type": 1001, "card": "order", "order_id": "12\n34", "n": 2.5, "list": [1, nil]],
            flags: [.noPersist, .redDot], replyTo: ReplyReference(messageID: "m1", seq: 7, sender: "bob", quoted: ["type": 1, "text": "hi"]),
            visibleTo: ["alice", "bob"], extensions: ["sender.name": "Ünï \\ Côdé", "forward.id": "m0"])), priority: .interactive, enqueuedAt: at)
        message.sequence = 1
        var plain = OutboxItem(operation: .message(OutgoingEnvelope(channel: .person("bob"), payload: ["type": 1, "text": "x"])), enqueuedAt: at)
        plain.sequence = 2
        var reaction = OutboxItem(operation: .reaction(emoji: "👍", messageID: "m9", channel: .person("bob"), added: false),
                                  priority: .broadcast, enqueuedAt: at)
        reaction.sequence = 3
        try store.commit(inserting: [message, plain, reaction], deleting: [])
        #expect(try store.pending() == [message, plain, reaction])
        try store.commit(inserting: [], deleting: [plain.id])
        #expect(try DatabaseOutboxStore(path: path).pending() == [message, reaction])
    }

    @Test func interactiveItemsOvertakeQueuedBroadcasts() async throws {
        let setup = try HubSetup()
        let limits = RateLimits(perAccount: TokenBucket.Rate(perSecond: 1, burst: 1))
        let outbox = Outbox(transport: try setup.hub.connect(user: "alice"), store: MemoryOutboxStore(), clock: setup.clock,
                            configuration: Outbox.Configuration(rateLimits: limits))
        try await outbox.start()
        let broadcasts = Task { await outbox.submit((1...3).map { Self.message("news \($0)", priority: .broadcast) }) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        let answer = Task { await outbox.submit([Self.message("answer", priority: .interactive)]) }
        // Let the submit reach the outbox before time moves (it queues behind the limit).
        try await withTimeout { while await outbox.queuedCount < 3 { try Task.checkCancellation(); await Task.yield() } }
        for _ in 0..<3 {
            await setup.clock.advance(by: .seconds(1))
        }
        _ = try await withTimeout { (await broadcasts.value, await answer.value) }
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob") == ["news 1", "answer", "news 2", "news 3"])
        await outbox.stop()
    }

    @Test func perChannelRateLimitSpacesSends() async throws {
        let setup = try HubSetup()
        let limits = RateLimits(perChannel: TokenBucket.Rate(perSecond: 2, burst: 1))
        let outbox = Outbox(transport: try setup.hub.connect(user: "alice"), store: MemoryOutboxStore(), clock: setup.clock,
                            configuration: Outbox.Configuration(rateLimits: limits))
        try await outbox.start()
        let start = setup.clock.now()
        let results = Task { await outbox.submit((1...5).map { Self.message("m\($0)") } + [Self.message("other", to: .person("carol"))]) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        // The other channel is not held back by bob's limit.
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "carol") == ["other"])
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob") == ["m1"])
        await setup.clock.advance(by: .seconds(2))
        _ = try await withTimeout { await results.value }
        #expect(try Self.texts(setup.hub, .person("alice"), seenBy: "bob") == ["m1", "m2", "m3", "m4", "m5"])
        #expect(setup.clock.now().timeIntervalSince(start) == 2)
        await outbox.stop()
    }

    @Test func aGlobalLimitIsSharedBetweenOutboxes() async throws {
        let setup = try HubSetup()
        let global = RateLimiter(rate: TokenBucket.Rate(perSecond: 1, burst: 1))
        let configuration = Outbox.Configuration(rateLimits: RateLimits(global: global))
        let alice = Outbox(transport: try setup.hub.connect(user: "alice"), store: MemoryOutboxStore(), clock: setup.clock, configuration: configuration)
        let carol = Outbox(transport: try setup.hub.connect(user: "carol"), store: MemoryOutboxStore(), clock: setup.clock, configuration: configuration)
        try await alice.start()
        try await carol.start()
        let start = setup.clock.now()
        _ = try await withTimeout { await alice.submit([Self.message("first")]) }
        let second = Task { await carol.submit([Self.message("second")]) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        #expect(try setup.hub.messages(in: .person("carol"), seenBy: "bob").isEmpty)
        await setup.clock.advance(by: .seconds(1))
        _ = try await withTimeout { await second.value }
        #expect(try Self.texts(setup.hub, .person("carol"), seenBy: "bob") == ["second"])
        #expect(setup.clock.now().timeIntervalSince(start) == 1)
        await alice.stop()
        await carol.stop()
    }

    @Test func backoffGrowsExponentiallyWithBoundedJitter() {
        let policy = RetryPolicy(initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(10), jitter: 0.2)
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil, random: 0.5) == .seconds(1))
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 0.5) == .seconds(4))
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 0) == .milliseconds(3200))
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 0.999_999) == .milliseconds(4800))
        #expect(policy.delay(afterAttempt: 9, retryAfter: nil, random: 0.5) == .seconds(10))
        #expect(policy.delay(afterAttempt: 2, retryAfter: .seconds(7), random: 0) == .seconds(7))
    }
}
