import Foundation
import ParleyTesting
import ParleyCore
import ParleyHub

/// A real embedded hub on a virtual clock with some users, and ChatClients on it.
final class HubSetup: Sendable {
    let clock: ManualClock
    let hub: Hub
    let directory: URL

    init(users: [String] = ["alice", "bob", "carol"], configuration: HubConfiguration = HubConfiguration()) throws {
        clock = ManualClock()
        hub = try Hub(clock: clock, configuration: configuration)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-core-\(UUID().uuidString)")
        for user in users { try hub.addUser(Profile(id: user, name: user.capitalized, avatar: "https://example.com/\(user).png")) }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A database path inside this setup's temporary directory.
    func databasePath(_ name: String) -> String { directory.appendingPathComponent("\(name).sqlite").path }

    /// A client for `user` on this hub and clock (not yet connected).
    func client(_ user: String, storage: ChatStorage = .memory, payloadLimit: Int? = nil,
                configure: (inout ChatClientConfiguration) -> Void = { _ in }) throws -> ChatClient {
        var configuration = ChatClientConfiguration(storage: storage, clock: clock,
                                                    outbox: Outbox.Configuration(random: { 0.5 }))
        configure(&configuration)
        return try ChatClient(transport: try hub.connect(user: user, payloadLimit: payloadLimit), configuration: configuration)
    }

    /// A connected client and its event stream (subscribed before connecting).
    func online(_ user: String, storage: ChatStorage = .memory,
                configure: (inout ChatClientConfiguration) -> Void = { _ in }) async throws -> (ChatClient, AsyncStream<ChatEvent>) {
        let client = try client(user, storage: storage, configure: configure)
        let events = await client.events()
        try await client.connect()
        return (client, events)
    }
}
