import Foundation
import ParleyCore
import ParleyHub
import Testing
import ParleyTesting

@Suite struct ChatClientBatchTests {
    @Test func eventBatchesCarryTheSameEventsAsTheStreamInOrder() async throws {
        let setup = try HubSetup()
        let bob = try setup.client("bob")
        let batches = await bob.eventBatches()
        let single = await bob.events()
        try await bob.connect()
        let (alice, _) = try await setup.online("alice")
        for index in 1...5 { _ = try await alice.send(TextContent("m\(index)"), to: .person("bob")) }

        let viaStream = try await collectMessages(single, count: 5)
        let viaBatches = try await withTimeout(seconds: 30) {
            var messages: [Message] = []
            for await batch in batches {
                #expect(!batch.isEmpty)
                for case .message(let message) in batch { messages.append(message) }
                if messages.count >= 5 { break }
            }
            return messages
        }
        #expect(viaBatches.map(\.id) == viaStream.map(\.id))
        #expect(viaBatches.compactMap { ($0.content as? TextContent)?.text } == ["m1", "m2", "m3", "m4", "m5"])
        await alice.close()
        await bob.close()
    }

    @Test func closingTheClientEndsItsBatchStreams() async throws {
        let setup = try HubSetup()
        let bob = try setup.client("bob")
        let batches = await bob.eventBatches()
        try await bob.connect()
        await bob.close()
        let ended = try await withTimeout(seconds: 30) {
            var iterator = batches.makeAsyncIterator()
            // Bounded: the stream ends after the connection events.
            while await iterator.next() != nil {}
            return true
        }
        #expect(ended)
    }
}
