import Foundation
import ParleyCore
import ParleyMatrix
import Testing

/// A broadcast-sized batch through the core SDK's outbox (several rooms at once) and
/// `MatrixTransport`, with the bot held to a rate limit by Synapse (429 `M_LIMIT_EXCEEDED`).
@Suite(.enabled(if: MatrixBotServer.isConfigured, "needs PARLEY_MATRIX_HOMESERVER (scripts/synapse start)"))
struct MatrixBatchTests {
    static let rooms = 50
    static let perRoom = 10

    @Test func fiveHundredMessagesToFiftyRoomsArriveCompleteOnceAndInOrder() async throws {
        let bot = try await MatrixBotServer.register("batch")
        try await MatrixBotServer.rateLimit(bot.userID)
        let url = try MatrixBotServer.url()
        let botClient = MatrixClient(homeserver: url, accessToken: bot.accessToken)
        // The bot's own rooms: what is read back is the server's record, the same for every member.
        let rooms = try await withThrowingTaskGroup(of: String.self) { group in
            var rooms: [String] = []
            for index in 0..<Self.rooms {
                if index >= 8, let room = try await group.next() { rooms.append(room) }
                group.addTask { try await botClient.createRoom(["preset": "private_chat"]) }
            }
            for try await room in group { rooms.append(room) }
            return rooms
        }
        #expect(Set(rooms).count == Self.rooms)
        // Synapse's default (0.2/s, burst 10) would make 500 messages take 40 minutes; a limit
        // below the send rate with a small burst still makes the server answer 429 many times.
        try await MatrixBotServer.rateLimit(bot.userID, perSecond: 8, burst: 10)

        var config = MatrixConfiguration(homeserver: url, userID: bot.userID, credentials: .accessToken(bot.accessToken),
                                         databasePath: MatrixBotServer.temporaryFolder() + "/batch.db")
        config.log = { _ in }
        let counter = RateLimitCounter(try MatrixTransport(configuration: config))
        let client = try ChatClient(transport: counter, configuration: ChatClientConfiguration(
            outbox: Outbox.Configuration(concurrentLanes: 8)))
        try await client.connect()
        let texts = (0..<Self.perRoom).map { TextContent("batch message \($0)") }
        let results = await client.batchSend(texts, to: rooms.map(Channel.group))
        await client.close()
        let failures = results.compactMap { result -> String? in
            if case .failure(let error) = result { return "\(error)" }
            return nil
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(counter.refused.load(ordering: .relaxed) > 0, "the homeserver never answered 429: the limit was not reached")
        // Rooms are independent: several were sent to at once (and each stayed in order, below).
        #expect(counter.mostInFlight.load(ordering: .relaxed) > 1)

        // Read every room back: each message exactly once, in order.
        for room in rooms {
            let page = try await botClient.messages(room: room, from: nil, direction: "b", limit: 100)
            let bodies = (page["chunk"]?.arrayValue ?? []).reversed().compactMap { event -> String? in
                guard event["sender"]?.stringValue == bot.userID, event["type"]?.stringValue == "m.room.message" else { return nil }
                return event["content"]?["body"]?.stringValue
            }
            #expect(bodies == texts.map(\.text), "room \(room): \(bodies)")
        }
    }
}
