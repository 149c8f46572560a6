import Testing
import YAMLCoding
import ParleyBots

@Suite struct HostConfigValidatorTests {
    static func errors(_ yaml: String, bots: [String] = []) -> String {
        do {
            let config = try YAMLDecoder(environment: [:]).decode(HostConfig.self, from: yaml, file: "config.yaml")
            return HostConfigValidator.validate(config, source: SourceFile(name: "config.yaml", text: yaml), botIDs: bots)
                .map(\.description).joined(separator: "\n")
        } catch {
            return error.description
        }
    }

    @Test func exampleConfigIsValid() {
        #expect(HostConfigValidatorTests.errors("""
            transport: { kind: local }
            storage: { path: .parley/parley.db }
            bots: bots
            profiles: { directory: profiles.yaml, expire: 10m }
            log: { level: info, format: text }
            broadcasts: { rate: 100/s }
            """) == "")
    }

    @Test func everyConfigProblem() {
        let yaml = """
            transport:
              kind: matrix
              accounts:
                support: { user: "support", password: "x", access_token: "y" }
                news: { user: "@news:localhost" }
            storage: { path: "" }
            profiles:
              directory: profiles.yaml
              url: https://crm.example/api/profiles
              expire: 10 min
            log: { level: verbose, format: xml }
            broadcasts: { rate: "100" }
            """
        #expect(HostConfigValidatorTests.errors(yaml, bots: ["support", "news"]) == """
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
            config.yaml:6:18: error: empty storage path: expected a file like .parley/parley.db or :memory:
            storage: { path: "" }
                             ^
            config.yaml:9:8: error: 'profiles' has both 'directory' and 'url': use one of them
              url: https://crm.example/api/profiles
                   ^
            config.yaml:9:8: error: profiles url 'https://crm.example/api/profiles' has no '{ids}': expected a URL with {ids} where the user ids go
              url: https://crm.example/api/profiles
                   ^
            config.yaml:10:13: error: invalid duration '10 min': unexpected ' '; expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d
              expire: 10 min
                        ^
            config.yaml:11:15: error: unknown log level 'verbose': expected debug, info, warn or error
            log: { level: verbose, format: xml }
                          ^
            config.yaml:11:32: error: unknown log format 'xml': expected text or json
            log: { level: verbose, format: xml }
                                           ^
            config.yaml:12:21: error: invalid rate '100': expected COUNT/UNIT with a unit of s, m or h, like 20/s or 600/m
            broadcasts: { rate: "100" }
                                ^
            """)
    }

    @Test func unknownKindIsSuggested() {
        #expect(HostConfigValidatorTests.errors("transport: { kind: lokal, homeserver: \"127.0.0.1\" }") == """
            config.yaml:1:20: error: unknown transport kind 'lokal': expected local or matrix
            transport: { kind: lokal, homeserver: "127.0.0.1" }
                               ^
            config.yaml:1:39: error: invalid homeserver '127.0.0.1': expected an http:// or https:// URL
            transport: { kind: lokal, homeserver: "127.0.0.1" }
                                                  ^
            """)
    }
}
