import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// Conveniences over `TestSynapse` for the transport's own tests: users with a raw client,
/// transports, rooms and messages.
enum TestHomeserver {
    /// A registered user with its own raw client.
    struct User: Sendable {
        var userID: String
        var password: String
        var client: MatrixClient
    }

    /// Registers a fresh user (unique name), with Synapse's rate limit lifted unless told otherwise.
    static func register(_ prefix: String, liftRateLimit: Bool = true) async throws -> User {
        let account = try await TestSynapse.register(prefix)
        if liftRateLimit { try await TestSynapse.setRateLimit(of: account.userID) }
        return User(userID: account.userID, password: account.password,
                    client: MatrixClient(homeserver: try TestSynapse.url(), accessToken: account.accessToken))
    }

    /// A transport for `user` with its own fresh database (or `databasePath`).
    static func transport(
        _ user: User, password: Bool = false, databasePath: String? = nil,
        configure: (inout MatrixConfiguration) -> Void = { _ in }
    ) throws -> MatrixTransport {
        let credentials: MatrixConfiguration.Credentials =
            password ? .password(user.password) : .accessToken(user.client.accessToken ?? "")
        var config = MatrixConfiguration(homeserver: try TestSynapse.url(), userID: user.userID, credentials: credentials,
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
