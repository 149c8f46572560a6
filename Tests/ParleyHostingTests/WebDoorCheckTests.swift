import Testing

/// `http.web_chat` and `http.agents` as `parley check` reports them: each mistake at its line
/// and column, checked against the bots and queues that exist.
@Suite struct WebDoorCheckTests {
    /// The errors of a config with `http` as given, beside the bot `t` (which hands off to `desk`).
    static func errors(_ http: String, kind: String = "") throws -> [String] {
        let bot = "name: T\ncommands:\n  human: { handoff: { queue: desk, note: help } }\n"
        let row = UnknownKeyCase(source: "", type: "", file: "config.yaml", text: "\(kind)http:\n\(http)", error: "")
        return try row.checkErrors(bot: bot)
    }

    @Test func aValidSectionHasNoErrors() throws {
        #expect(try Self.errors("""
              listen: 127.0.0.1:8080
              web_chat: { bots: [t], origins: ["https://shop.example", "http://localhost:3000"], rate: { session: 2/s, address: 100/m }, expire: 1h }
              agents:
                nina: { token: "0123456789abcdef", queues: [desk] }
            """) == [])
    }

    @Test func eachMistakeIsNamedWhereItIs() throws {
        #expect(try Self.errors("""
              listen: 127.0.0.1:8080
              web_chat: { bots: [t, nobody, t], origins: ["https://shop.example/path", "ftp://x"], rate: { session: fast }, expire: soon }
              agents:
                nina: { token: short, queues: [desk, phone] }
                omar: { token: "0123456789abcdef", queues: [] }
                ines: { token: "0123456789abcdef", queues: [desk] }
            """) == [
                "config.yaml:3:25: error: unknown bot 'nobody' in web_chat.bots: expected t",
                "config.yaml:3:33: error: bot 't' is listed twice in web_chat.bots",
                "config.yaml:3:47: error: web_chat origin 'https://shop.example/path': an origin has no path, query, user or spaces: expected https://host[:port]",
                "config.yaml:3:76: error: web_chat origin 'ftp://x': the scheme must be https or http",
                "config.yaml:3:105: error: invalid rate 'fast': expected COUNT/UNIT with a unit of s, m or h, like 20/s or 600/m",
                "config.yaml:3:121: error: invalid duration 'soon': expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d",
                "config.yaml:5:20: error: agent 'nina': the token is shorter than 16 characters: set a long random one (from the environment: \"${NINA_TOKEN}\")",
                "config.yaml:5:42: error: agent 'nina': unknown queue 'phone': expected desk",
                "config.yaml:6:48: error: agent 'omar': empty queues: name the queues they work",
                "config.yaml:7:20: error: agent 'ines' has the same token as 'omar': each agent needs their own",
            ])
    }

    @Test func theDoorNeedsAListenerAndTheChatNeedsTheEmbeddedHub() throws {
        #expect(try Self.errors("""
              web_chat: { bots: [t] }
              agents:
                nina: { token: "0123456789abcdef", queues: [desk] }
            """) == [
                "config.yaml:2:21: error: 'web_chat' without 'listen': add listen: 127.0.0.1:8080",
                "config.yaml:4:5: error: 'agents' without 'listen': add listen: 127.0.0.1:8080",
            ])
    }
}
