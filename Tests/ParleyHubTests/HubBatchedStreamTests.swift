import ParleyCore
import ParleyHub
import Testing

/// `HubTransport.connectBatched()`: the same events as `connect()`, in batches, under the
/// same buffer limit counted in events.
@Suite struct HubBatchedStreamTests {
    /// Every batch of a finished stream, drained (bounded: the stream has ended).
    private func drain(_ stream: AsyncStream<[TransportEvent]>) async -> [[TransportEvent]] {
        var batches: [[TransportEvent]] = []
        for await batch in stream { batches.append(batch) }
        return batches
    }

    private func seqs(_ events: [TransportEvent]) -> [Int64] {
        events.compactMap { event in
            if case .message(let envelope) = event { return envelope.seq }
            return nil
        }
    }

    @Test(arguments: Storage.allCases)
    func batchesCarryTheEventsInOrder(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        let bob = try fixture.hub.connect(user: "bob")
        // Two sent before connecting (catch-up), the rest live, nobody reading meanwhile.
        for index in 1...2 { _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("\(index)"))) }
        let stream = try await bob.connectBatched()
        let results = await alice.sendBatch((3...20).map { OutgoingEnvelope(channel: .person("bob"), payload: text("\($0)")) })
        for result in results { _ = try result.get() }
        await bob.disconnect()

        let batches = await drain(stream)
        let events = batches.flatMap { $0 }
        #expect(batches.allSatisfy { !$0.isEmpty })
        // Buffered while nobody read: far fewer batches than events.
        #expect(batches.count < events.count)
        #expect(events.first == .connection(.connected))
        #expect(events.last == .connection(.disconnected))
        #expect(seqs(events) == Array(1...20))
        #expect(bob.deliveredEventCount == events.count)
    }

    @Test(arguments: Storage.allCases)
    func slowBatchedConsumerIsDisconnectedByEventCountAndCatchesUp(storage: Storage) async throws {
        let fixture = try HubFixture(storage, configuration: HubConfiguration(eventBufferLimit: 4))
        let alice = try fixture.hub.connect(user: "alice")
        let bob = try fixture.hub.connect(user: "bob")
        let stream = try await bob.connectBatched()  // nobody reads it yet
        for index in 1...10 { _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("\(index)"))) }
        #expect(!fixture.hub.isOnline("bob"))

        // The limit (4, plus the one catch-up event) counts events, not batches.
        let buffered = await drain(stream).flatMap { $0 }
        #expect(buffered.count == 5)
        #expect(seqs(buffered) == [1, 2, 3, 4])

        let second = try await bob.connectBatched()
        let results = await alice.sendBatch([OutgoingEnvelope(channel: .person("bob"), payload: text("11"))])
        for result in results { _ = try result.get() }
        await bob.disconnect()
        let rest = await drain(second).flatMap { $0 }
        #expect(seqs(buffered) + seqs(rest) == Array(1...11))
    }

    @Test func cancellingTheConsumerEndsTheStream() async throws {
        let fixture = try HubFixture(.memory)
        let bob = try fixture.hub.connect(user: "bob")
        let stream = try await bob.connectBatched()
        let consumer = Task {
            var count = 0
            for await batch in stream { count += batch.count }
            return count
        }
        consumer.cancel()
        // Ends whether the cancel came before or during the wait (the connected event may
        // or may not have been taken first).
        #expect(await consumer.value <= 1)
    }
}
