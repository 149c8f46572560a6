import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import YAMLCoding

/// Bot engine figures on the embedded hub with in-memory storage: command round trips per
/// second (pipelined across 100 users, and strictly sequential for one), p99 latency,
/// unrelated messages per second with 50 commands and 50 triggers loaded, peak memory.
func benchBots() async throws {
    let bench = try await BotBench(users: 100)
    // Wall-clock rates depend on what else runs on the machine; the CPU figure (process CPU
    // time per operation, all threads) is the steadier one on a shared host.
    var cpu = BotBench.cpuSeconds()
    let pipelined = try await bench.roundTrips(users: 100, each: 200)
    print(String(format: "bots.roundtrips.pipelined: %.0f/s (100 users × 200, p99 %.3f ms, %.1f µs CPU each)",
                 pipelined.rate, pipelined.p99 * 1000, (BotBench.cpuSeconds() - cpu) / 20_000 * 1e6))
    cpu = BotBench.cpuSeconds()
    let sequential = try await bench.roundTrips(users: 1, each: 5_000)
    print(String(format: "bots.roundtrips.sequential: %.0f/s (1 user × 5000, p99 %.3f ms, %.1f µs CPU each)",
                 sequential.rate, sequential.p99 * 1000, (BotBench.cpuSeconds() - cpu) / 5_000 * 1e6))
    cpu = BotBench.cpuSeconds()
    let unrelated = try await bench.unrelated(count: 50_000)
    print(String(format: "bots.unrelated: %.0f messages/s (50 commands + 50 triggers, 50000 messages, %.1f µs CPU each)",
                 unrelated, (BotBench.cpuSeconds() - cpu) / 50_000 * 1e6))
    print("bots.memory.peak: \(BotBench.peakMemoryKiB() / 1024) MB (VmHWM)")
    // After the memory figure, so the floor's tasks do not count in it.
    cpu = BotBench.cpuSeconds()
    let floorPipelined = await HandoffFloor.roundTrips(pairs: 100, rounds: 2_000)
    print(String(format: "bots.floor.pipelined: %.0f/s, %.1f µs CPU each (100 bare task pairs handing a number back and forth: no hub, SDK or engine; the bot path runs at %.0f%% of it)",
                 floorPipelined, (BotBench.cpuSeconds() - cpu) / 200_000 * 1e6, pipelined.rate / floorPipelined * 100))
    cpu = BotBench.cpuSeconds()
    let floorSequential = await HandoffFloor.roundTrips(pairs: 1, rounds: 100_000)
    print(String(format: "bots.floor.sequential: %.0f/s, %.1f µs CPU each (1 bare task pair; the bot path runs at %.0f%% of it)",
                 floorSequential, (BotBench.cpuSeconds() - cpu) / 100_000 * 1e6, sequential.rate / floorSequential * 100))
    await bench.shutdown()
}

/// One hub, one bot with 50 commands and 50 triggers, and connected users.
struct BotBench {
    let hub: Hub
    let host: BotHost
    let clients: [ChatClient]
    let answers: [AsyncStream<ChatEvent>.AsyncIterator.Box]

    /// `echo` is the template of the `/echo` command's answer: the workload expects the text
    /// sent back as it came, so any other template is a wrong answer the bench must catch; so
    /// is any `fallback` answer to the unrelated messages.
    init(users: Int, echo: String = "{{args.text}}", fallback: String? = nil) async throws {
        hub = try Hub()
        var yaml = "id: bench\ncommands:\n  echo:\n    args: [text]\n    reply: \"\(echo)\"\n"
        for index in 1..<50 { yaml += "  cmd\(index):\n    reply: \"command \(index)\"\n" }
        yaml += "triggers:\n"
        for index in 0..<25 { yaml += "  - contains: \"keyword\(index)\"\n    reply: \"k\(index)\"\n" }
        for index in 0..<25 { yaml += "  - match: \"^pattern\(index) (?<rest>.+)$\"\n    reply: \"{{match.rest}}\"\n" }
        if let fallback { yaml += "fallback:\n  - reply: \"\(fallback)\"\n" }
        let definition = try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: yaml, file: "bench.yaml")
        let bot = try CompiledBot(id: "bench", definition: definition)
        try hub.addUser(Profile(id: "bench", name: "Bench"))
        host = BotHost(store: MemoryBotStore())
        let transport = try hub.connect(user: "bench")
        try host.add(bot, connection: BotConnection(transport: transport, deliveredEventCount: { transport.deliveredEventCount }))
        await host.start()
        (clients, answers) = try await Self.connectUsers(users, to: hub)
    }

    /// Users `u0`…`u<count-1>` on `hub`, connected, each with the stream of what it receives.
    static func connectUsers(_ count: Int, to hub: Hub) async throws -> (clients: [ChatClient], answers: [AsyncStream<ChatEvent>.AsyncIterator.Box]) {
        var clients: [ChatClient] = []
        var answers: [AsyncStream<ChatEvent>.AsyncIterator.Box] = []
        for index in 0..<count {
            try hub.addUser(Profile(id: "u\(index)", name: "User \(index)"))
            let client = try ChatClient(transport: hub.connect(user: "u\(index)"))
            answers.append(.init(await client.events().makeAsyncIterator()))
            try await client.connect()
            clients.append(client)
        }
        return (clients, answers)
    }

    /// `users` users each send `/echo …` and wait for the answer, `each` times, concurrently.
    func roundTrips(users: Int, each: Int) async throws -> (rate: Double, p99: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for index in 0..<users {
                let client = clients[index], answers = self.answers[index]
                group.addTask {
                    var latencies: [Double] = []
                    latencies.reserveCapacity(each)
                    for round in 0..<each {
                        let sent = clock.now
                        _ = try await client.send(TextContent("/echo \(index) \(round)"), to: .person("bench"))
                        try await answers.nextAnswer(from: "bench", expecting: "\(index) \(round)")
                        let elapsed = clock.now - sent
                        latencies.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                    }
                    return latencies
                }
            }
            var all: [Double] = []
            for try await part in group { all += part }
            return all
        }
        let total = clock.now - start
        let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
        let sorted = latencies.sorted()
        let p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        return (Double(latencies.count) / seconds, p99)
    }

    /// Messages no command or trigger matches (no fallback): how fast the bot gets through them.
    /// Any answer to one of them is wrong, and fails the run: after them each user sends one
    /// more `/echo`, whose answer must be the next message it gets (a conversation's answers
    /// keep its order).
    func unrelated(count: Int) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let perUser = count / clients.count
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in clients {
                group.addTask {
                    for index in 0..<perUser { _ = try await client.send(TextContent("just chatting \(index)"), to: .person("bench")) }
                }
            }
            try await group.waitForAll()
        }
        await host.waitUntilIdle()
        let total = clock.now - start
        for (index, client) in clients.enumerated() {
            _ = try await client.send(TextContent("/echo \(index) end"), to: .person("bench"))
            try await answers[index].nextAnswer(from: "bench", expecting: "\(index) end")
        }
        return Double(perUser * clients.count) / (Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18)
    }

    func shutdown() async {
        await host.stop()
        for client in clients { await client.close() }
    }

    /// CPU time of the whole process so far (user + system, every thread), in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The process's peak resident memory in KiB (`VmHWM`), 0 if unknown.
    static func peakMemoryKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}

extension AsyncStream<ChatEvent>.AsyncIterator {
    /// A shareable holder for one consumer's iterator (each user's task is its only reader).
    final class Box: @unchecked Sendable {
        // @unchecked: exactly one task uses each box at a time.
        var iterator: AsyncStream<ChatEvent>.AsyncIterator
        init(_ iterator: AsyncStream<ChatEvent>.AsyncIterator) { self.iterator = iterator }

        /// Waits for the next message from `sender` and checks that it is the text `expected`.
        func nextAnswer(from sender: String, expecting expected: String) async throws {
            // Bounded by the stream: it ends when the client closes.
            while let event = await iterator.next() {
                guard case .message(let message) = event, message.sender == sender else { continue }
                let text = (message.content as? TextContent)?.text
                guard text == expected else {
                    throw BenchFailure("bots: expected the answer \"\(expected)\", got \(text.map { "\"\($0)\"" } ?? "a \(type(of: message.content))")")
                }
                return
            }
            throw ParleyError(.notConnected, "the event stream ended")
        }
    }
}
