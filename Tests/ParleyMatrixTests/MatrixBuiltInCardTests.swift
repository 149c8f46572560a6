import Foundation
import ParleyCore
import Testing
@testable import ParleyMatrix

/// Every entry of `BuiltInCard.all` crosses Matrix: its payload becomes the card's own
/// `chat.parley.card.<name>` message with the fallback as `body`, and comes back unchanged,
/// decoding to the same content.
@Suite struct MatrixBuiltInCardTests {
    @Test(arguments: BuiltInCard.all.map(\.name))
    func everyBuiltInCardMapsToMatrixAndBack(name: String) throws {
        let card = try #require(BuiltInCard.named[name])
        let content = card.make(Dictionary(uniqueKeysWithValues: card.fields.map { ($0, "7") }))
        let payload = content.encoded()
        let message = try MatrixContent.encode(payload: payload, replyTo: nil, ownUserID: "@bot:hs", textMsgtype: "m.text",
                                               clientMessageID: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
        #expect(message["msgtype"]?.stringValue == "chat.parley.card." + card.name)
        #expect(message["body"]?.stringValue == content.fallback)
        let decoded = try #require(MatrixContent.decode(message))
        #expect(decoded.payload == payload)
        #expect(try ContentRegistry.standard.decode(decoded.payload).encoded() == payload)
    }
}
