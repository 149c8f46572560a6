import Foundation
import ParleyCore
import Testing
@testable import ParleyMatrix

/// Payload ⇄ `m.room.message` content (no server needed).
@Suite struct MatrixContentTests {
    let cmid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))

    @Test(arguments: ["m.text", "m.notice"])
    func textBecomesPlainMessage(msgtype: String) throws {
        let content = try MatrixContent.encode(payload: ["type": 1, "text": "hello <there>"], replyTo: nil,
                                               ownUserID: "@bot:hs", textMsgtype: msgtype, clientMessageID: cmid)
        #expect(content == [
            "msgtype": .string(msgtype), "body": "hello <there>",
            "chat.parley.client_message_id": .string(cmid.uuidString),
        ])
    }

    @Test func cardCarriesPayloadFallbackAndEscapedHTML() throws {
        let payload: JSONValue = [
            "type": 4, "card": "vcard", "fallback": "Card: <b>Bob & Co</b>", "name": "\"Bob\" <script>",
            "url": "https://example.org/?a=1&b=<2>", "avatar": "javascript:alert(1)",
        ]
        let content = try MatrixContent.encode(payload: payload, replyTo: nil, ownUserID: "@bot:hs",
                                               textMsgtype: "m.text", clientMessageID: cmid)
        #expect(content["msgtype"] == "chat.parley.card.vcard")
        #expect(content["body"] == "Card: <b>Bob & Co</b>")
        #expect(content["format"] == "org.matrix.custom.html")
        #expect(content["chat.parley.card"] == payload)
        #expect(content["formatted_body"]?.stringValue == """
            <p><b>Card: &lt;b&gt;Bob &amp; Co&lt;/b&gt;</b></p><ul><li><b>avatar</b>: javascript:alert(1)</li>\
            <li><b>name</b>: &quot;Bob&quot; &lt;script&gt;</li>\
            <li><b>url</b>: <a href="https://example.org/?a=1&amp;b=&lt;2&gt;">https://example.org/?a=1&amp;b=&lt;2&gt;</a></li></ul>
            """)
        #expect(MatrixContent.decode(content)?.payload == payload)
        #expect(MatrixContent.decode(content)?.clientMessageID == cmid)
    }

    @Test func replyCarriesRelationAndMention() throws {
        let reply = ReplyReference(messageID: "$orig", seq: 3, sender: "@alice:hs", quoted: ["type": 1, "text": "hi"])
        let content = try MatrixContent.encode(payload: ["type": 1, "text": "answer"], replyTo: reply, ownUserID: "@bot:hs",
                                               textMsgtype: "m.text", clientMessageID: cmid)
        #expect(content["m.relates_to"] == ["m.in_reply_to": ["event_id": "$orig"]])
        #expect(content["m.mentions"] == ["user_ids": ["@alice:hs"]])
        #expect(MatrixContent.decode(content)?.replyEventID == "$orig")
    }

    @Test(arguments: [
        (JSONValue.object(["text": "no type"]), "payload must be an object with an integer `type`"),
        (["type": 1, "body": "x"], "text payload lacks a string `text`"),
        (["type": 9, "card": "bad name!"], "card name 'bad name!' must be letters, digits, '_', '-' or '.'"),
    ] as [(JSONValue, String)])
    func rejectsInvalidPayloads(payload: JSONValue, message: String) {
        #expect {
            try MatrixContent.encode(payload: payload, replyTo: nil, ownUserID: "@bot:hs", textMsgtype: "m.text", clientMessageID: cmid)
        } throws: { error in
            (error as? ParleyError)?.code == .invalidContent && (error as? ParleyError)?.message == message
        }
    }

    @Test func incomingReplyFallbackIsStripped() {
        let content: JSONValue = [
            "msgtype": "m.text", "body": "> <@bot:hs> first line\n> second\n\nthe answer\n> kept",
            "m.relates_to": ["m.in_reply_to": ["event_id": "$orig"]],
        ]
        #expect(MatrixContent.decode(content)?.payload == ["type": 1, "text": "the answer\n> kept"])
    }

    @Test func quoteWithoutReplyIsKept() {
        #expect(MatrixContent.decode(["msgtype": "m.text", "body": "> quoted"])?.payload == ["type": 1, "text": "> quoted"])
    }

    @Test func editsAndRedactedContentsAreNotDelivered() {
        #expect(MatrixContent.decode(["msgtype": "m.text", "body": "* fixed", "m.new_content": ["msgtype": "m.text", "body": "fixed"]]) == nil)
        #expect(MatrixContent.decode([:]) == nil)
    }

    @Test func unknownCardWithoutTypeFallsBackToText() {
        let content: JSONValue = ["msgtype": "chat.parley.card.order", "body": "Order #1", "chat.parley.card": ["id": 1]]
        #expect(MatrixContent.decode(content)?.payload == ["type": 1, "text": "Order #1"])
    }

    @Test func aCardEventIsWhatItsBodyShowsUnlessItIsTheCardItsMsgtypeNames() {
        // A forged "card" whose payload is a text command: clients show the body, so does Parley.
        let forged: JSONValue = ["msgtype": "chat.parley.card.order", "body": "Order 123456: shipped",
                                 "chat.parley.card": ["type": 1, "text": "/resolve 1"]]
        #expect(MatrixContent.decode(forged)?.payload == ["type": 1, "text": "Order 123456: shipped"])
        // A payload of another card than the msgtype names.
        let mismatched: JSONValue = ["msgtype": "chat.parley.card.order", "body": "Hi",
                                     "chat.parley.card": ["type": 1002, "card": "ticket", "number": 1]]
        #expect(MatrixContent.decode(mismatched)?.payload == ["type": 1, "text": "Hi"])
        // What `encode` writes decodes to the card itself.
        let order: JSONValue = ["type": 1001, "card": "order", "order_id": "123456"]
        let encoded = try? MatrixContent.encode(payload: order, replyTo: nil, ownUserID: "@bot:hs", textMsgtype: "m.text",
                                                clientMessageID: UUID())
        #expect(encoded.flatMap { MatrixContent.decode($0) }?.payload == order)
        let unnamed: JSONValue = ["type": 1003, "x": "y"]
        let encodedUnnamed = try? MatrixContent.encode(payload: unnamed, replyTo: nil, ownUserID: "@bot:hs", textMsgtype: "m.text",
                                                       clientMessageID: UUID())
        #expect(encodedUnnamed.flatMap { MatrixContent.decode($0) }?.payload == unnamed)
    }
}
