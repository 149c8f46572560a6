import Synchronization
import Foundation
import ParleyCore
import ParleyHub
import Testing
import ParleyTesting

/// The submitter sends a round itself when none runs: these pin down that lanes keep their
/// order, rounds never overlap on a one-at-a-time transport, retries and stop still work.
@Suite struct OutboxInlineRoundTests {
    static func message(_ text: String, to user: String = "bob") -> OutboxItem {
        OutboxItem(operation: .message(OutgoingEnvelope(channel: .person(user), payload: TextContent(text).encoded())))
    }

    static func texts(_ hub: Hub, seenBy user: String = "bob") throws -> [String] {
        try hub.messages(in: .person("alice"), seenBy: user).compactMap { $0.payload["text"]?.stringValue }
    }

    /// A started outbox of alice over a one-round-at-a-time gated transport, with a round
    /// for `text` submitted and held at the gate.
    static func heldRound(_ text: String) async throws
        -> (setup: HubSetup, transport: GatedTransport, outbox: Outbox, held: Task<[Result<OutboxResult, ParleyError>], Never>) {
        let setup = try HubSetup()
        let transport = GatedTransport(try setup.hub.connect(user: "alice"), width: 1)
        let outbox = Outbox(transport: transport, store: MemoryOutboxStore(), clock: setup.clock)
        try await outbox.start()
        let held = Task { await outbox.submit([Self.message(text)]) }
        try await withTimeout {
            while transport.state.withLock({ $0.inFlight }) < 1 { try Task.checkCancellation(); await Task.yield() }
        }
        return (setup, transport, outbox, held)
    }

    @Test func itemsQueuedDuringARoundFollowItInLaneOrder() async throws {
        // The first submitter's own round is held by the gate.
        let (setup, transport, outbox, first) = try await Self.heldRound("m0")
        var later: [Task<[Result<OutboxResult, ParleyError>], Never>] = []
        for index in 1...3 {
            later.append(Task { await outbox.submit([Self.message("m\(index)")]) })
            // Each is queued before the next is submitted: that is the order the lane keeps.
            try await withTimeout {
                while await outbox.queuedCount < index { try Task.checkCancellation(); await Task.yield() }
            }
        }
        #expect(transport.state.withLock { $0.inFlight } == 1, "a second round started while one was in flight")
        transport.openGate()
        _ = try await withTimeout { await first.value }[0].get()
        for task in later { _ = try await withTimeout { await task.value }[0].get() }
        #expect(transport.state.withLock { $0.mostInFlight } == 1)
        #expect(try Self.texts(setup.hub) == ["m0", "m1", "m2", "m3"])
        await outbox.stop()
    }

    @Test func aFailedInlineRoundIsRetriedByTheWorkerAndKeepsItsPlace() async throws {
        let setup = try HubSetup()
        let outbox = Outbox(transport: try setup.hub.connect(user: "alice"), store: MemoryOutboxStore(), clock: setup.clock,
                            configuration: Outbox.Configuration(random: { 0.5 }))
        try await outbox.start()
        setup.hub.failNextSends(1, with: ParleyError(.serverError, "try again"), from: "alice")
        let first = Task { await outbox.submit([Self.message("first")]) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        // The lane waits for its backoff: a later item of the same lane must not overtake.
        let second = Task { await outbox.submit([Self.message("second")]) }
        try await withTimeout {
            while await outbox.queuedCount < 2 { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(try Self.texts(setup.hub).isEmpty)
        await setup.clock.advance(by: .seconds(1))
        _ = try await withTimeout { await first.value }[0].get()
        _ = try await withTimeout { await second.value }[0].get()
        #expect(try Self.texts(setup.hub) == ["first", "second"])
        await outbox.stop()
    }

    @Test func stopWaitsForARoundASubmitterRuns() async throws {
        let (setup, transport, outbox, sent) = try await Self.heldRound("held")
        let stopping = Task { await outbox.stop() }
        // The round ends only when the gate opens; stop returns after it, with its result in.
        transport.openGate()
        try await withTimeout { await stopping.value }
        _ = try await withTimeout { await sent.value }[0].get()
        #expect(try Self.texts(setup.hub) == ["held"])
        #expect(await outbox.submit([Self.message("late")]).first.map { (try? $0.get()) == nil } == true)
    }

    /// Each lone answer's row is written in one commit that also deletes the row of the
    /// answer before it (accepted, so only a crash would resend it, recognized by its client
    /// message id): one commit per answer, not one to write its row and one to delete it.
    @Test(arguments: TestDatabase.kinds)
    func loneAnswersCostOneCommitEach(database: TestDatabase) async throws {
        let setup = try HubSetup()
        let path = database.location("one-commit")
        let store = CommitCountingStore(try DatabaseOutboxStore(path: path))
        let outbox = Outbox(transport: try setup.hub.connect(user: "alice"), store: store, clock: setup.clock)
        try await outbox.start()
        for index in 0..<5 { _ = try await outbox.submit([Self.message("m\(index)")])[0].get() }
        #expect(store.commits == 5)
        #expect(try DatabaseOutboxStore(path: path).pending().count == 1)
        await outbox.stop()
        #expect(store.commits == 6)
        #expect(try DatabaseOutboxStore(path: path).pending().isEmpty)
    }

    @Test(arguments: TestDatabase.kinds)
    func aDurableStoreHasNoRowsLeftAfterInlineRounds(database: TestDatabase) async throws {
        let setup = try HubSetup()
        let path = database.location("inline")
        let outbox = Outbox(transport: try setup.hub.connect(user: "alice"), store: try DatabaseOutboxStore(path: path), clock: setup.clock)
        try await outbox.start()
        for index in 0..<5 { _ = try await outbox.submit([Self.message("m\(index)")])[0].get() }
        await outbox.stop()
        #expect(try DatabaseOutboxStore(path: path).pending().isEmpty)
        #expect(try Self.texts(setup.hub) == (0..<5).map { "m\($0)" })
    }
}

/// An outbox store that counts its commits.
final class CommitCountingStore: OutboxStore {
    private let store: any OutboxStore
    private let count = Mutex(0)
    var commits: Int { count.withLock { $0 } }

    init(_ store: any OutboxStore) { self.store = store }

    func commit(inserting: [OutboxItem], deleting: [UUIDKey]) throws {
        count.withLock { $0 += 1 }
        try store.commit(inserting: inserting, deleting: deleting)
    }

    func pending() throws -> [OutboxItem] { try store.pending() }
}
