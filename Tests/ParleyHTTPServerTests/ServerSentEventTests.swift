import ParleyHTTPServer
import Testing

/// The `text/event-stream` encoding of one event.
@Suite struct ServerSentEventTests {
    @Test func fieldsComeOneALineAndABlankLineEndsTheEvent() {
        #expect(ServerSentEvent(data: "hello").encoded == "data: hello\n\n")
        #expect(ServerSentEvent(id: "42", event: "message.bot", data: "{}", retry: 3_000).encoded
                == "event: message.bot\nid: 42\nretry: 3000\ndata: {}\n\n")
    }

    @Test func eachLineOfTheDataGetsItsOwnField() {
        #expect(ServerSentEvent(data: "one\ntwo\r\nthree\rfour").encoded == "data: one\ndata: two\ndata: three\ndata: four\n\n")
        #expect(ServerSentEvent(data: "").encoded == "data: \n\n")
        #expect(ServerSentEvent(data: "ends\n").encoded == "data: ends\ndata: \n\n")
    }

    @Test func anIdOrTypeThatWouldBreakTheFormatIsLeftOut() {
        #expect(ServerSentEvent(id: "1\ndata: forged", event: "a\rb", data: "x").encoded == "data: x\n\n")
        #expect(ServerSentEvent(id: "a\0b", data: "x").encoded == "data: x\n\n")
    }
}
