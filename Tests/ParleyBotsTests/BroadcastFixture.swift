import Foundation
import ParleyTesting
import ParleyBots
import ParleyCore
import ParleyHub

/// An embedded hub with a bot `news` and users `u0…`, and a broadcast service over a store.
struct BroadcastFixture {
    let hub: Hub
    let transport: HubTransport
    let store: BroadcastStore
    let service: BroadcastService
    let clock: any ParleyClock

    init(users: Int, hubPath: String = ":memory:", storePath: String = ":memory:", clock: any ParleyClock = JumpingClock(),
         configuration: BroadcastConfiguration = BroadcastConfiguration(random: { 0.5 }), createUsers: Bool = true) throws {
        hub = try Hub(path: hubPath, clock: clock)
        if createUsers {
            try hub.addUser(Profile(id: "news", name: "News"))
            for index in 0..<users { try hub.addUser(Profile(id: "u\(index)", name: "User \(index)")) }
        }
        transport = try hub.connect(user: "news")
        store = try BroadcastStore(path: storePath)
        service = BroadcastService(store: store, clock: clock, configuration: configuration)
        self.clock = clock
    }

    /// Targets `user:u0…` for `range`.
    static func targets(_ range: Range<Int>) -> [String] { range.map { "user:u\($0)" } }

    /// The messages the bot has stored in its direct channel with `user`.
    func messages(to user: String) throws -> [Envelope] {
        try hub.messages(in: .person("news"), seenBy: user)
    }
}
