import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Synchronization
import Testing
import ParleyTesting
import YAMLCoding

/// A hub with users, one bot host on a virtual clock, and clients for the people who talk.
/// Everything goes through the embedded hub: users send with their own `ChatClient`, what
/// the bot did is read back from the hub.
final class BotFixture: Sendable {
    static let fixtures = TestFixtures.folder

    let clock = ManualClock(start: Date(timeIntervalSince1970: 1_796_112_000))
    let hub: Hub
    let bot: CompiledBot
    let logLines = LineLog()
    let clients = Mutex<[String: ChatClient]>([:])
    let seen = Mutex<[String: Int]>([:])
    let host = Mutex<BotHost?>(nil)

    /// `yaml` is a bot file's text; `store` defaults to memory.
    init(yaml: String? = nil, users: [Profile] = BotFixture.people, hub: Hub? = nil) throws {
        let text = try yaml ?? String(contentsOf: Self.fixtures.appendingPathComponent("support.yaml"), encoding: .utf8)
        let definition = try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: text, file: "support.yaml")
        let errors = BotValidator.validate(definition, source: SourceFile(name: "support.yaml", text: text))
        try #require(errors.isEmpty, "\(errors)")
        let id = definition.id?.value ?? "support"
        bot = try CompiledBot(id: id, definition: definition, file: "support.yaml")
        self.hub = try hub ?? Hub(clock: clock)
        if hub == nil {
            try self.hub.addUser(Profile(id: id, name: bot.name))
            for user in users { try self.hub.addUser(user) }
        }
    }

    static let people = [
        Profile(id: "alice", name: "Alice"), Profile(id: "bob", name: "Bob Stone", phone: "+49 30 1234567"),
        Profile(id: "carol", name: "Carol"),
    ]

    /// Starts a bot host on `store`; `configure` may change the bot's connection (its
    /// profiles, a transport wrapped around the hub's).
    @discardableResult
    func start(store: any BotStore = MemoryBotStore(), options: BotHostOptions = BotHostOptions(),
               configure: (inout BotConnection) -> Void = { _ in }) async throws -> BotHost {
        let logger = BotLogger(level: .debug, sink: { [logLines] line in logLines.append(line) })
        let host = BotHost(store: store, clock: clock, logger: logger, options: options)
        let transport = try hub.connect(user: bot.id)
        var connection = BotConnection(transport: transport, deliveredEventCount: { transport.deliveredEventCount })
        configure(&connection)
        try host.add(bot, connection: connection)
        let started = await host.start()
        #expect(started == [bot.id])
        self.host.withLock { $0 = host }
        return host
    }

    var runningHost: BotHost {
        get throws { try #require(host.withLock { $0 }) }
    }

    /// The client of `user`, connected on first use.
    func client(_ user: String) async throws -> ChatClient {
        if let client = clients.withLock({ $0[user] }) { return client }
        let client = try ChatClient(transport: hub.connect(user: user),
                                    configuration: ChatClientConfiguration(registry: bot.registry, clock: clock))
        try await client.connect()
        clients.withLock { $0[user] = client }
        return client
    }

    /// `user` sends `text` (to the bot, or into `channel`); returns once the bot is idle.
    @discardableResult
    func say(_ text: String, as user: String = "alice", in channel: Channel? = nil) async throws -> Message {
        let message = try await client(user).send(TextContent(text), to: channel ?? .person(bot.id))
        try await idle()
        return message
    }

    /// Waits for the host to be idle, failing the test after 20 s of real time.
    func idle() async throws {
        let host = try runningHost
        try await withTimeout("waitUntilIdle") { await host.waitUntilIdle() }
    }

    /// Advances the virtual clock, then waits for idle.
    func advance(_ duration: Duration) async throws {
        await clock.advance(by: duration)
        try await idle()
    }

    /// Messages in `channel` (as `viewer` names it) not returned before, decoded.
    func newMessages(in channel: Channel? = nil, seenBy viewer: String = "alice") throws -> [Message] {
        let target = channel ?? .person(bot.id)
        let all = try hub.messages(in: target, seenBy: viewer)
        let key = "\(viewer)|\(target.target)"
        let start = seen.withLock { $0[key] ?? 0 }
        seen.withLock { $0[key] = all.count }
        return try all[start...].map { try Message(envelope: $0, registry: bot.registry) }
    }

    /// The texts (or card fallbacks) the bot sent, not returned before.
    func botTexts(in channel: Channel? = nil, seenBy viewer: String = "alice") throws -> [String] {
        try newMessages(in: channel, seenBy: viewer).filter { $0.sender == bot.id }.map { $0.text ?? $0.content.fallback }
    }

    /// The stored message `id` as `viewer` sees it (reactions included).
    func stored(_ id: String, in channel: Channel? = nil, seenBy viewer: String = "alice") throws -> Envelope? {
        try hub.messages(in: channel ?? .person(bot.id), seenBy: viewer).first { $0.id == id }
    }

    var log: [String] { logLines.lines }

    /// Stops the host and every client.
    func shutdown() async {
        if let host = host.withLock({ $0 }) { await host.stop() }
        for client in clients.withLock({ Array($0.values) }) { await client.close() }
    }
}

/// Log lines collected from a host.
final class LineLog: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

extension BotFixture {
    /// `group:agents` with the bot and Carol, the agent.
    func createAgents() async throws {
        try hub.createGroup("agents", members: [bot.id, "carol"])
    }
}
