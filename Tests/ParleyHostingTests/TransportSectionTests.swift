import ParleyBots
import ParleyHosting
import Testing
import YAMLCoding

/// The `transport:` section as each kind's provider reads it: its own keys, its own checks,
/// errors at the line and column at fault.
@Suite struct TransportSectionTests {
    /// The errors of `config` (and `bots`, file name → text) as `parley check` prints them.
    static func errors(_ config: String, bots: [String: String] = [:]) -> String {
        do {
            let decoded = try YAMLDecoder(environment: [:]).decode(HostConfig.self, from: config, file: "config.yaml")
            var loaded: [LoadedBot] = []
            var errors: [YAMLError] = []
            for (name, text) in bots.sorted(by: { $0.key < $1.key }) {
                let file = "bots/\(name).yaml"
                do {
                    let definition = try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: text, file: file)
                    loaded.append(LoadedBot(file: file, id: name, definition: definition, source: SourceFile(name: file, text: text)))
                } catch {
                    errors += error.errors
                }
            }
            switch TransportKinds.load(decoded, bots: loaded, source: SourceFile(name: "config.yaml", text: config), environment: [:]) {
            case .success: break
            case .failure(let problems): errors += problems.errors
            }
            return errors.sortedByPosition().map(\.description).joined(separator: "\n")
        } catch {
            return error.description
        }
    }

    @Test func noSectionIsTheEmbeddedHub() {
        #expect(Self.errors("bots: bots") == "")
        #expect(Self.errors("transport: { kind: local }") == "")
    }

    /// Synapse creates rooms of version 12 by default: their ids are `!` and a 43-character
    /// hash, without a server name. A config naming one must load; a malformed one still fails.
    @Test func roomVersion12IDsAreRooms() {
        func config(_ room: String) -> String {
            """
            transport:
              kind: matrix
              homeserver: http://127.0.0.1:8008
              accounts:
                support: { user: "@support:localhost", access_token: "t" }
              rooms:
                agents: "\(room)"
            """
        }
        #expect(Self.errors(config("!BHtWj1saFfHslQnYUXNkc9p6gwnsa7IrTAVmHVUJavg"), bots: ["support": "name: Support"]) == "")
        #expect(Self.errors(config("!old:localhost"), bots: ["support": "name: Support"]) == "")
        #expect(Self.errors(config("!BHtWj1saFfHslQnYUXNkc9p6gwnsa7IrTAVmHVUJav"), bots: ["support": "name: Support"])
            .contains("invalid room '!BHtWj1saFfHslQnYUXNkc9p6gwnsa7IrTAVmHVUJav' for 'agents'"))
        #expect(Self.errors(config("!BHtWj1saFfHslQnYUXNkc9p6gwnsa7IrTAVmHVUJa/g"), bots: ["support": "name: Support"])
            .contains("invalid room"))
    }

    @Test func everyMatrixProblem() {
        let yaml = """
            transport:
              kind: matrix
              accounts:
                support: { user: "support", password: "x", access_token: "y" }
                news: { user: "@news:localhost" }
              rooms:
                agents: "agents"
              users:
                alice: alice
            """
        #expect(Self.errors(yaml, bots: ["support": "name: Support", "news": "name: News", "extra": "name: Extra"]) == """
            config.yaml:2:9: error: bot 'extra' has no entry in 'transport.accounts': kind 'matrix' needs a user and a password or access_token per bot
              kind: matrix
                    ^
            config.yaml:2:9: error: transport kind 'matrix' needs 'homeserver' (like http://127.0.0.1:8008)
              kind: matrix
                    ^
            config.yaml:4:22: error: invalid Matrix user 'support': expected @name:server
                support: { user: "support", password: "x", access_token: "y" }
                                 ^
            config.yaml:4:62: error: account 'support' has both 'password' and 'access_token': use one of them
                support: { user: "support", password: "x", access_token: "y" }
                                                                         ^
            config.yaml:5:11: error: account 'news' needs 'password' or 'access_token'
                news: { user: "@news:localhost" }
                      ^
            config.yaml:7:13: error: invalid room 'agents' for 'agents': expected a room id like !AbCdEf:localhost (or, from room version 12, ! and 43 characters of base64) or an alias like #agents:localhost
                agents: "agents"
                        ^
            config.yaml:9:12: error: invalid Matrix user 'alice' for 'alice': expected @name:server
                alice: alice
                       ^
            """)
    }

    @Test func unknownKindAndKeysAreErrorsAtTheirColumn() {
        #expect(Self.errors("transport: { kind: lokal, homeserver: \"127.0.0.1\" }") == """
            config.yaml:1:20: error: unknown transport kind 'lokal': expected local or matrix
            transport: { kind: lokal, homeserver: "127.0.0.1" }
                               ^
            """)
        // A key of another kind is an unknown key of this one, with the nearest suggestion.
        #expect(Self.errors("transport: { kind: local, homeserver: \"http://127.0.0.1\" }").contains(
            "config.yaml:1:27: error: unknown key 'homeserver'"))
        #expect(Self.errors("""
            transport:
              kind: matrix
              homeserver: http://127.0.0.1:8008
              room: { agents: "#agents:localhost" }
            """).contains("config.yaml:4:3: error: unknown key 'room', did you mean 'rooms'?"))
    }

    @Test func namesWithoutARoomAreErrorsWhereTheBotUsesThem() {
        let config = """
            transport:
              kind: matrix
              homeserver: http://127.0.0.1:8008
              accounts:
                support: { user: "@support:localhost", password: pw }
              rooms:
                agents: "#agents:localhost"
            """
        let bot = """
            commands:
              news:
                send: { text: hi, to: "group:announcements" }
              direct:
                send: { text: hi, to: "group:!AbCdEf:localhost" }
              refund:
                handoff: { queue: agents }
              escalate:
                handoff: { queue: supervisors }
              alice:
                send: { text: hi, to: "user:alice" }
            """
        #expect(Self.errors(config, bots: ["support": bot]) == """
            bots/support.yaml:3:27: error: group 'announcements' has no room on the Matrix homeserver: map it in 'transport.rooms' of config.yaml (like announcements: "#announcements:localhost")
                send: { text: hi, to: "group:announcements" }
                                      ^
            bots/support.yaml:9:23: error: hand-off queue 'supervisors' has no room on the Matrix homeserver: map it in 'transport.rooms' of config.yaml (like supervisors: "#supervisors:localhost")
                handoff: { queue: supervisors }
                                  ^
            """)
    }
}
