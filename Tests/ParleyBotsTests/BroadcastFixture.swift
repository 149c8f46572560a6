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

    /// Creates a job of `news` to u0…u`count-1` at 1 a second and starts its run on `clock`;
    /// returns once u0 has been sent to and the run waits on the clock for the next token.
    func startJobAtOnePerSecond(to count: Int, text: String = "Hi", clock: ManualClock) async throws
        -> (id: String, run: Task<BroadcastReport, any Error>) {
        var audience = BroadcastRecipients()
        try audience.append(targets: Self.targets(0..<count))
        let id = try service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: text),
                                    recipients: audience, rate: Rate(count: 1, per: .seconds(1))).job.id
        let service = self.service, transport = self.transport
        let run = Task { try await service.run(id, transport: transport) }
        try await withTimeout { await clock.waitForSleepers(1) }
        return (id, run)
    }

    /// Targets `user:u0…` for `range`.
    static func targets(_ range: Range<Int>) -> [String] { range.map { "user:u\($0)" } }

    /// The messages the bot has stored in its direct channel with `user`.
    func messages(to user: String) throws -> [Envelope] {
        try hub.messages(in: .person("news"), seenBy: user)
    }
}
