import Foundation
import ParleyMatrix
import Testing

/// Paths and query values are percent-encoded by hand: the same as Foundation would.
@Suite struct MatrixClientPathTests {
    @Test(arguments: ["!AbC:localhost", "$ev/en+t=1", "#room:example.org", "@user:hs", "plain-._~", "ünï cödé 中文 😀",
                      "a%b&c?d#e", "", "BHtWj1saFfHslQnYUXNkc9p6gwnsa7IrTAVmHVUJavg"])
    func componentsAreEncodedAsFoundationEncodesThem(component: String) {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        #expect(MatrixClient.encode(component) == component.addingPercentEncoding(withAllowedCharacters: unreserved))
    }

    @Test func aPathJoinsEncodedComponents() {
        #expect(MatrixClient.clientPath("rooms", "!a:b", "send", "m.room.message", "t 1")
            == "/_matrix/client/v3/rooms/%21a%3Ab/send/m.room.message/t%201")
    }
}
