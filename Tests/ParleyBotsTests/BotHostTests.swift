import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Testing
import ParleyTesting
import YAMLCoding

/// Several bots in one host: one bot's failures never stop the others; broadcasts; logs.
@Suite struct BotHostTests {
    static func compile(_ id: String, _ yaml: String) throws -> CompiledBot {
        let definition = try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: yaml, file: "\(id).yaml")
        let errors = BotValidator.validate(definition, source: SourceFile(name: "\(id).yaml", text: yaml))
        try #require(errors.isEmpty, "\(errors)")
        return try CompiledBot(id: id, definition: definition, file: "\(id).yaml")
    }

    static let echo = """
        commands:
          echo:
            args: [text]
            reply: "{{args.text}}"
          announce:
            args: [text]
            broadcast:
              to: ["group:team", "user:bob"]
              send: { text: "{{args.text}} (for {{recipient.id}})" }
        """

    /// A transport that cannot connect: a bot whose server is unreachable.
    struct UnreachableTransport: Transport {
        var userID: String
        var payloadLimit: Int { 1 << 20 }
        var concurrentSends: Int { 1 }
        func connect() async throws -> AsyncStream<TransportEvent> { throw ParleyError(.networkUnavailable, "unreachable") }
        func disconnect() async {}
        func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { throw ParleyError(.networkUnavailable, "unreachable") }
        func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] { await sendEachInOrder(messages) }
        func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {}
        func prepareSends(to channels: [Channel]) async {}
        func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] { [] }
        func profiles(of userIDs: [String]) async throws -> [Profile] { [] }
        func members(of channel: Channel) async throws -> [String] { [] }
    }

    @Test func oneBotsFailureNeverStopsTheOthers() async throws {
        let clock = ManualClock()
        let hub = try Hub(clock: clock)
        for id in ["alice", "bob", "fine", "broken", "offline"] { try hub.addUser(Profile(id: id, name: id.capitalized)) }
        try hub.createGroup("team", members: ["alice", "fine"])
        let log = LineLog()
        let host = BotHost(store: MemoryBotStore(), clock: clock, logger: BotLogger(level: .debug, format: .json, sink: { log.append($0) }))
        for id in ["fine", "broken"] {
            let transport = try hub.connect(user: id)
            try host.add(Self.compile(id, Self.echo), connection: BotConnection(transport: transport, deliveredEventCount: { transport.deliveredEventCount }))
        }
        try host.add(Self.compile("offline", Self.echo), connection: BotConnection(transport: UnreachableTransport(userID: "offline")))
        #expect(await host.start() == ["fine", "broken"])

        hub.failNextSends(1, with: ParleyError(.permissionDenied, "muted"), from: "broken")
        let alice = try ChatClient(transport: hub.connect(user: "alice"), configuration: ChatClientConfiguration(clock: clock))
        try await alice.connect()
        _ = try await alice.send(TextContent("/echo one"), to: .person("broken"))
        _ = try await alice.send(TextContent("/echo two"), to: .person("fine"))
        _ = try await alice.send(TextContent("/announce hello"), to: .person("fine"))
        try await withTimeout("idle") { await host.waitUntilIdle() }
        _ = try await alice.send(TextContent("/echo three"), to: .person("broken"))
        try await withTimeout("idle") { await host.waitUntilIdle() }

        func texts(_ channel: Channel, _ viewer: String) throws -> [String] {
            try hub.messages(in: channel, seenBy: viewer).filter { $0.sender != viewer }.compactMap { $0.payload["text"]?.stringValue }
        }
        #expect(try texts(.person("fine"), "alice") == ["two"])
        #expect(try texts(.person("broken"), "alice") == ["three"])
        #expect(try texts(.group("team"), "alice") == ["hello (for team)"])
        #expect(try texts(.person("fine"), "bob") == ["hello (for bob)"])

        let lines = log.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
        #expect(lines.count == log.lines.count)
        #expect(lines.contains { $0["event"] == "bot not started" && $0["bot"] == "offline" && $0["level"] == "error" })
        #expect(lines.contains { $0["event"] == "send failed" && $0["bot"] == "broken" && ($0["error"] ?? "").contains("muted") })
        #expect(lines.contains { $0["event"] == "broadcast" && $0["targets"] == "2" && $0["failed"] == "0" })
        await host.stop()
        await alice.close()
    }

    @Test func twoBotsInOneGroupNeverAnswerEachOther() async throws {
        let clock = ManualClock()
        let hub = try Hub(clock: clock)
        for id in ["alice", "ping", "pong"] { try hub.addUser(Profile(id: id)) }
        try hub.createGroup("room", members: ["alice", "ping", "pong"])
        let host = BotHost(store: MemoryBotStore(), clock: clock)
        let chatty = "fallback:\n  - reply: \"I heard {{message.text}}\"\n"
        for id in ["ping", "pong"] {
            let transport = try hub.connect(user: id)
            try host.add(Self.compile(id, chatty), connection: BotConnection(transport: transport, deliveredEventCount: { transport.deliveredEventCount }))
        }
        await host.start()
        let alice = try ChatClient(transport: hub.connect(user: "alice"), configuration: ChatClientConfiguration(clock: clock))
        try await alice.connect()
        _ = try await alice.send(TextContent("hello"), to: .group("room"))
        try await withTimeout("idle") { await host.waitUntilIdle() }
        let texts = try hub.messages(in: .group("room"), seenBy: "alice").compactMap { $0.payload["text"]?.stringValue }
        #expect(texts == ["hello", "I heard hello", "I heard hello"])
        await host.stop()
        await alice.close()
    }

    @Test func textLogLinesAreOneLineWithQuotedValues() {
        let log = LineLog()
        let logger = BotLogger(level: .info, sink: { log.append($0) })
        let time = Date(timeIntervalSince1970: 1_796_112_000)
        logger.log(.debug, at: time, bot: "support", "hidden")
        logger.log(.warn, at: time, bot: "support", "message refused", ["text": "two\nlines \"q\"", "bytes": "12"])
        #expect(log.lines == [#"2026-12-01T08:00:00Z warn support message refused bytes=12 text="two\nlines \"q\"""#])
    }
}
