@testable import ParleyHosting
import ParleyBots
import Testing
import YAMLCoding

/// The Matrix section as the provider decodes it: `${VAR}`s, accounts, the vCard file switch
/// and the names bots use.
@Suite struct MatrixSettingsTests {
    static func settings(_ yaml: String, environment: [String: String] = [:]) throws -> MatrixSettings {
        let config = try YAMLDecoder(environment: [:]).decode(HostConfig.self, from: yaml, file: "config.yaml")
        return try YAMLDecoder(environment: environment).decode(MatrixSettings.self, from: try #require(config.transport).section,
                                                               source: SourceFile(name: "config.yaml", text: yaml))
    }

    @Test func accountsAndTheirSecretsFromTheEnvironment() throws {
        let settings = try Self.settings("""
            transport:
              kind: matrix
              homeserver: http://127.0.0.1:8008
              accounts:
                support: { user: "@support:localhost", password: "${SUPPORT_PASSWORD}" }
                news: { user: "@news:localhost", access_token: "${NEWS_TOKEN:-t0k}", device_id: D1 }
                empty: { user: "@empty:localhost", password: "${EMPTY:-}" }
            """, environment: ["SUPPORT_PASSWORD": "s3cret"])
        #expect(settings.accounts?.names == ["support", "news", "empty"])
        #expect(settings.credentials(of: "support") == .password("s3cret"))
        #expect(settings.credentials(of: "news") == .accessToken("t0k"))
        #expect(settings.accounts?["news"]?.deviceID?.value == "D1")
        #expect(settings.credentials(of: "empty") == nil)
        #expect(settings.credentials(of: "nobody") == nil)
    }

    @Test func vCardFilesAreOnUnlessTurnedOff() throws {
        #expect(try Self.settings("transport: { kind: matrix }").attachesVCardFiles)
        #expect(try Self.settings("transport: { kind: matrix, vcard_files: true }").attachesVCardFiles)
        #expect(try !Self.settings("transport: { kind: matrix, vcard_files: false }").attachesVCardFiles)
        #expect(throws: YAMLErrors.self) { _ = try Self.settings("transport: { kind: matrix, vcard_files: sometimes }") }
    }

    @Test func theNamesABotUsesMapToRoomsAndUsers() throws {
        let settings = try Self.settings("""
            transport:
              kind: matrix
              accounts:
                support: { user: "@helpdesk:example.org", password: pw }
              rooms:
                agents: "#agents:example.org"
              users:
                alice: "@alice:elsewhere.net"
            """)
        let names = settings.names(forAccount: "@helpdesk:example.org", joined: ["agents": "!abc:example.org"])
        #expect(names.users == ["alice": "@alice:elsewhere.net", "support": "@helpdesk:example.org"])
        #expect(names.groups == ["agents": "!abc:example.org"])
        #expect(names.defaultServer == "example.org")
        #expect(settings.names(forAccount: "@helpdesk:example.org").groups == ["agents": "#agents:example.org"])
    }
}
