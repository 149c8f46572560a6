import Foundation
import ParleyBots
import ParleyCore
import Testing

/// The inbox row is written by hand and read by `JSONDecoder`: the two must agree, or a
/// message stored before a restart would be lost after it.
@Suite struct ReceivedMessageStoredFormTests {
    static let messages: [ReceivedMessage] = [
        ReceivedMessage(Message(id: "$ev1", channel: .person("@alice:localhost"), seq: 7, clientMessageID: UUID(),
                                sender: "@alice:localhost", timestamp: Date(timeIntervalSince1970: 1_764_633_600.123456),
                                content: TextContent("where is order 123456? \"quoted\" 😀\n"),
                                extensions: ["sender.name": "Alice \u{1}"])),
        ReceivedMessage(Message(id: "m-2", channel: .group("!room:hs"), seq: 1, clientMessageID: UUID(), sender: "bob",
                                timestamp: Date(timeIntervalSinceReferenceDate: 0), content: TextContent(""))),
        ReceivedMessage(Message(id: "m-3", channel: Channel(kind: .local, id: "console"), seq: Int64.max, clientMessageID: UUID(), sender: "c",
                                timestamp: Date(timeIntervalSinceReferenceDate: -12.5), content: TextContent("x"))),
        // A user's reaction to the bot's message, kept in the inbox like a message.
        ReceivedMessage(reaction: "$r1", channel: .person("@alice:localhost"), sender: "@alice:localhost", messageID: "$ev0",
                        emoji: "👍", timestamp: Date(timeIntervalSince1970: 1_764_633_601.5)),
    ]

    @Test(arguments: messages)
    func theHandWrittenFormDecodesToTheSameMessage(message: ReceivedMessage) throws {
        let decoded = try JSONDecoder().decode(ReceivedMessage.self, from: Data(message.storedJSON.utf8))
        #expect(decoded == message)
    }

    /// Rows written before the hand-written form (by `JSONEncoder`) read the same.
    @Test(arguments: messages)
    func rowsOfTheEncoderStillDecode(message: ReceivedMessage) throws {
        let old = try JSONEncoder().encode(message)
        #expect(try JSONValue.parse(old) == JSONValue.parse(message.storedJSON))
    }
}
