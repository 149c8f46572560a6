import Foundation
import ParleyCore
import Testing
@testable import ParleyMatrix

/// The Synapse started by `scripts/synapse start` (see `PARLEY_MATRIX_*` in the environment).
enum TestHomeserver {
    static let environment = ProcessInfo.processInfo.environment
    /// Matrix suites run only when a homeserver is configured.
    static let isConfigured = environment["PARLEY_MATRIX_HOMESERVER"] != nil

    static func url() throws -> URL {
        try #require(environment["PARLEY_MATRIX_HOMESERVER"].flatMap(URL.init(string:)), "PARLEY_MATRIX_HOMESERVER is not a URL")
    }

    /// A registered user with its own raw client.
    struct User: Sendable {
        var userID: String
        var password: String
        var client: MatrixClient
    }

    /// Registers a fresh user (unique name) with the shared-secret admin API: nonce, then
    /// HMAC-SHA1 over `nonce\0user\0password\0admin|notadmin`.
    static func register(_ prefix: String, admin: Bool = false, liftRateLimit: Bool = true) async throws -> User {
        let secret = try #require(environment["PARLEY_MATRIX_SHARED_SECRET"], "PARLEY_MATRIX_SHARED_SECRET is not set")
        let anonymous = MatrixClient(homeserver: try url())
        let path = "/_synapse/admin/v1/register"
        let nonce = try #require(try await anonymous.request("GET", path)["nonce"]?.stringValue)
        let name = "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
        let password = "pw-\(UUID().uuidString)"
        let message = [nonce, name, password, admin ? "admin" : "notadmin"].joined(separator: "\0")
        let mac = SHA1.hex(SHA1.hmac(key: Array(secret.utf8), message: Array(message.utf8)))
        let answer = try await anonymous.request("POST", path, body: [
            "nonce": .string(nonce), "username": .string(name), "password": .string(password), "admin": .bool(admin),
            "mac": .string(mac),
        ])
        let user = User(userID: try #require(answer["user_id"]?.stringValue), password: password,
                        client: MatrixClient(homeserver: try url(), accessToken: try #require(answer["access_token"]?.stringValue)))
        if liftRateLimit { try await lift(user.userID) }
        return user
    }

    /// One admin per test process, for lifting rate limits.
    private static let admin = Task { try await register("admin", admin: true, liftRateLimit: false) }

    /// Lifts Synapse's message rate limit for `userID` (admin override API).
    static func lift(_ userID: String) async throws {
        let admin = try await admin.value
        try await admin.client.request("POST", "/_synapse/admin/v1/users/\(MatrixClient.encode(userID))/override_ratelimit",
                                       body: ["messages_per_second": 0, "burst_count": 0])
    }

    /// A transport for `user` with its own fresh database (or `databasePath`).
    static func transport(
        _ user: User, password: Bool = false, databasePath: String? = nil,
        configure: (inout MatrixConfiguration) -> Void = { _ in }
    ) throws -> MatrixTransport {
        let credentials: MatrixConfiguration.Credentials =
            password ? .password(user.password) : .accessToken(user.client.accessToken ?? "")
        var config = MatrixConfiguration(homeserver: try url(), userID: user.userID, credentials: credentials,
                                         databasePath: databasePath ?? freshDatabasePath())
        config.reconnectBackoff = (.milliseconds(100), .seconds(1))
        config.log = { _ in }
        configure(&config)
        return try MatrixTransport(configuration: config)
    }

    /// A database path in a new temporary directory.
    static func freshDatabasePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-matrix-tests")
            .appendingPathComponent(UUID().uuidString).appendingPathComponent("matrix.db").path
    }

    /// Creates a room as `owner`, invites `members` and returns its id.
    static func createRoom(_ owner: User, inviting members: [String], extra: [String: JSONValue] = [:]) async throws -> String {
        var body: [String: JSONValue] = ["preset": "private_chat", "invite": .array(members.map { .string($0) })]
        body.merge(extra) { _, new in new }
        return try await owner.client.createRoom(.object(body))
    }

    /// Sends a text as `user` and returns the event id.
    @discardableResult
    static func say(_ user: User, _ text: String, in room: String, extra: [String: JSONValue] = [:]) async throws -> String {
        var content: [String: JSONValue] = ["msgtype": "m.text", "body": .string(text)]
        content.merge(extra) { _, new in new }
        return try await user.client.send(room: room, type: "m.room.message", txnID: UUID().uuidString, content: .object(content))
    }

    /// A connected bot, joined (through its invite policy) to a room `alice` created.
    static func joinedBot(configure: (inout MatrixConfiguration) -> Void = { _ in })
        async throws -> (bot: MatrixTransport, botUser: User, alice: User, room: String, inbox: Inbox)
    {
        let botUser = try await register("bot")
        let alice = try await register("alice")
        let room = try await createRoom(alice, inviting: [botUser.userID])
        let transport = try transport(botUser, configure: configure)
        let inbox = Inbox.start(try await transport.connect())
        return (transport, botUser, alice, room, inbox)
    }
}
