import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import YAMLCoding

/// What stays in memory as conversations and profiles accumulate: the
/// resident memory (`VmRSS`) a production-shaped host gains from 100,000 users who each sent
/// a bot one message and went quiet, and a profile service gains from looking up 100,000
/// profiles. Checked: every user got exactly the greeting and the answer, every profile
/// came back with its own name.
func benchMemory() async throws {
    // A smaller count (`parley-bench memory 10000`) suits a heap profiler; figures are scaled.
    let conversations = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) }.map { max(1_000, $0) } ?? 100_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-memory-\(UUID().uuidString)")
    // Owner-only, as Parley wants its storage folder (it would tighten it and say so).
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: directory) }
    let idle = try await MemoryBench.idleConversations(conversations, in: directory.path)
    print(String(format: "memory.idle_conversations: %.1f MB per 100,000 (%d users answered once, then idle; hub, engine and client on SQLite)",
                 Double(idle) / 1024 / Double(conversations) * 100_000, conversations))
    let hubOnly = try await MemoryBench.hubConversations(conversations, in: directory.path)
    print(String(format: "memory.hub_conversations: %.1f MB per 100,000 (the hub alone: as many users each sending one message to an account no bot answers)",
                 Double(hubOnly) / 1024 / Double(conversations) * 100_000))
    let profiles = try await MemoryBench.profiles(conversations)
    print(String(format: "memory.profiles: %.1f MB per 100,000 (%d profiles looked up, then idle)",
                 Double(profiles) / 1024 / Double(conversations) * 100_000, conversations))
}

enum MemoryBench {
    /// Resident memory gained (KiB) once `count` users have each sent one message and had
    /// their greeting and answer: what the host keeps for conversations no one uses.
    static func idleConversations(_ count: Int, in directory: String) async throws -> Int {
        let hub = try Hub(path: directory + "/hub.db")
        let yaml = """
            id: bench
            greeting:
              - send: { text: "Hi {{user.name}}" }
            commands:
              echo:
                args: [text]
                reply: "{{args.text}}"
            """
        let definition = try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: yaml, file: "bench.yaml")
        try hub.addUser(Profile(id: "bench", name: "Bench"))
        let host = BotHost(store: try DatabaseBotStore(path: directory + "/state.db"))
        let transport = try hub.connect(user: "bench")
        try host.add(try CompiledBot(id: "bench", definition: definition),
                     connection: BotConnection(transport: transport, deliveredEventCount: { transport.deliveredEventCount },
                                               storage: .sqlite(path: directory + "/bot.db")))
        await host.start()
        // A first round warms every path (and the allocator) before the baseline.
        try await sendOne(hub: hub, users: 0..<100)
        await host.waitUntilIdle()
        let before = residentKiB()
        try await sendOne(hub: hub, users: 100..<count)
        await host.waitUntilIdle()
        let gained = residentKiB() - before
        // Every user holds exactly the greeting and the answer, in their own conversation.
        for index in stride(from: 0, to: count, by: 997) {
            let seen = try hub.messages(in: .person("bench"), seenBy: "u\(index)").filter { $0.sender == "bench" }
            let texts = seen.compactMap { $0.payload["text"]?.stringValue }
            guard texts == ["Hi User \(index)", "one \(index)"] else {
                throw BenchFailure("user u\(index) holds \(texts), not the greeting and the answer")
            }
        }
        await host.stop()
        try hub.close()
        return gained
    }

    /// Resident memory gained (KiB) by a hub alone once `count` users have each sent one
    /// message to an account nobody runs: the server's share of the figure above.
    static func hubConversations(_ count: Int, in directory: String) async throws -> Int {
        let hub = try Hub(path: directory + "/hub-only.db")
        try hub.addUser(Profile(id: "bench", name: "Bench"))
        try await sendOne(hub: hub, users: 0..<100)
        let before = residentKiB()
        try await sendOne(hub: hub, users: 100..<count)
        let gained = residentKiB() - before
        for index in stride(from: 0, to: count, by: 997) {
            let texts = try hub.messages(in: .person("bench"), seenBy: "u\(index)").compactMap { $0.payload["text"]?.stringValue }
            guard texts == ["/echo one \(index)"] else { throw BenchFailure("user u\(index) holds \(texts), not its one message") }
        }
        try hub.close()
        return gained
    }

    /// Each user of `users` sends `/echo one N` to the bot (through the hub directly: a
    /// client per user would measure the users, not the host).
    private static func sendOne(hub: Hub, users: Range<Int>) async throws {
        for index in users {
            try hub.addUser(Profile(id: "u\(index)", name: "User \(index)"))
            let sender = try hub.connect(user: "u\(index)")
            _ = try await sender.send(OutgoingEnvelope(channel: .person("bench"), payload: TextContent("/echo one \(index)").encoded()))
            await sender.disconnect()
        }
    }

    /// Resident memory gained (KiB) by a profile service that looked up `count` profiles.
    static func profiles(_ count: Int) async throws -> Int {
        let service = ProfileService(provider: NumberedProfiles())
        _ = try await service.profiles(of: (0..<100).map { "p\($0)" })
        let before = residentKiB()
        for start in stride(from: 100, to: count, by: 100) {
            let ids = (start..<min(count, start + 100)).map { "p\($0)" }
            let found = try await service.profiles(of: ids)
            for id in ids where found[id]?.name != "Person \(id)" { throw BenchFailure("profile \(id) came back as \(String(describing: found[id]))") }
        }
        return residentKiB() - before
    }

    /// A provider that knows every id `pN` (named `Person pN`), with a phone and an email so
    /// each profile has the size of a real one.
    struct NumberedProfiles: ProfileProvider {
        var maxBatchSize: Int { 100 }
        func fetchProfiles(_ ids: [String]) async throws -> [Profile] {
            ids.map { Profile(id: $0, name: "Person \($0)", avatar: "https://example.com/avatars/\($0).png",
                              phone: "+1 555 0100", email: "\($0)@example.com") }
        }
    }

    /// The process's resident memory now, in KiB (`VmRSS`), 0 if unknown.
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
