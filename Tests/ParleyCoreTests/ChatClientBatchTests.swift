import Foundation
import ParleyCore
import ParleyHub
import Testing

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
        let viaBatches = try await withTimeout(30) {
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
        let ended = try await withTimeout(30) {
            var iterator = batches.makeAsyncIterator()
            // Bounded: the stream ends after the connection events.
            while await iterator.next() != nil {}
            return true
        }
        #expect(ended)
    }

    @Test func aMemoryClientFindsTheMessageOfAReactionInItsHistory() async throws {
        let setup = try HubSetup()
        let (alice, aliceEvents) = try await setup.online("alice")
        let (bob, bobEvents) = try await setup.online("bob")
        let sent = try await alice.send(TextContent("react to me"), to: .person("bob"))
        let received = try await collectMessages(bobEvents, count: 1)[0]
        try await bob.react("👍", to: received)
        let event = try await firstEvent(aliceEvents) { if case .reaction = $0 { true } else { false } }
        guard case .reaction(_, let updated) = event else { Issue.record("no reaction event"); return }
        #expect(updated?.id == sent.id)
        #expect(updated?.reactions == [ReactionSummary(emoji: "👍", users: ["bob"])])
        #expect(try await alice.message(id: sent.id)?.reactions == [ReactionSummary(emoji: "👍", users: ["bob"])])
        await alice.close()
        await bob.close()
    }
}
