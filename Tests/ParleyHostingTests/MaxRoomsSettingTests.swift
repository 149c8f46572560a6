@testable import ParleyHosting
import Testing

/// `transport.max_rooms`: how many rooms each bot account may be in before it declines invites.
@Suite struct MaxRoomsSettingTests {
    /// A Matrix section of one account (five lines), then `max_rooms` at line 6.
    static func config(_ maxRooms: String? = nil) -> String {
        InsecureHomeserverTests.config("http://127.0.0.1:8008") + (maxRooms.map { "\n  max_rooms: \($0)" } ?? "")
    }

    static func maxRooms(_ yaml: String) throws -> Int {
        let settings = try MatrixSettingsTests.settings(yaml)
        return try MatrixBotAccounts.configuration(bot: "support", file: "bots/support.yaml", settings: settings,
                                                   homeserver: MatrixBotAccounts.homeserver(settings), databases: AccountDatabases(folder: "/tmp"), log: { _ in }).maxRooms
    }

    @Test func tenThousandUnlessSet() throws {
        #expect(try Self.maxRooms(Self.config()) == 10_000)
        #expect(try Self.maxRooms(Self.config("50")) == 50)
        #expect(TransportSectionTests.errors(Self.config("50")) == "")
    }

    @Test(arguments: ["0", "-3"])
    func aNumberBelowOneIsAnErrorAtItsValue(value: String) {
        #expect(TransportSectionTests.errors(Self.config(value)) == """
            config.yaml:6:14: error: invalid max_rooms \(value): expected a positive number of rooms, like 10000
              max_rooms: \(value)
                         ^
            """)
    }

    @Test func aWordIsAnErrorAtItsValue() {
        #expect(TransportSectionTests.errors(Self.config("many")).hasPrefix("config.yaml:6:14: error:"))
    }

    @Test func aLocalTransportDoesNotKnowTheKey() {
        #expect(TransportSectionTests.errors("transport: { kind: local, max_rooms: 5 }").contains(
            "config.yaml:1:27: error: unknown key 'max_rooms'"))
    }
}
