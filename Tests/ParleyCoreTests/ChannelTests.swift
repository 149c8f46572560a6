import Testing
import ParleyCore

@Suite struct ChannelTests {
    @Test(arguments: [
        ("user:alice", Channel.person("alice")),
        ("group:helpdesk", Channel.group("helpdesk")),
        ("group:!room:localhost", Channel.group("!room:localhost")),
    ])
    func parsesTargets(text: String, channel: Channel) {
        #expect(Channel(target: text) == channel)
        #expect(Channel(target: text)?.target == text)
    }

    @Test(arguments: ["alice", "user:", "team:x", ""])
    func rejectsMalformedTargets(text: String) {
        #expect(Channel(target: text) == nil)
    }

    @Test func errorDescriptionNamesCodeAndContext() {
        let error = ParleyError(.rateLimited, "slow down", retryAfter: .seconds(2), context: ["channel": "user:bob"])
        #expect(error.description == "rateLimited: slow down (retry after 2.0 seconds) [channel=user:bob]")
        #expect(error.isTransient)
    }
}
