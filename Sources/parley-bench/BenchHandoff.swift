import Foundation
import ParleyCore
import ParleyHosting
import ParleyHub
import ParleyTesting
import Synchronization

/// Hand-off at scale on the embedded hub with SQLite, as `parley run` composes it: 10,000
/// customers each ask one of 3 queues for a human; 20 agents work every queue, assigned round
/// robin; each agent resolves the tickets assigned to them as the assignments arrive. Checked:
/// every ticket is opened, assigned and resolved once, and the turns are even (each agent
/// gets its share of each queue, to one ticket).
func benchHandoff() async throws {
    let customers = 10_000, queues = 3, agentCount = 20
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-handoff-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
    try "storage: { path: state/parley.db }\nlog: { level: warn }\n".write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
    let agents = (1...agentCount).map { String(format: "agent%02d", $0) }
    var bot = "id: desk\ncommands:\n"
    for queue in 1...queues { bot += "  h\(queue): { handoff: { queue: q\(queue), note: \"help\" } }\n" }
    bot += "handoff:\n  queues:\n"
    for queue in 1...queues { bot += "    q\(queue): { agents: [\(agents.joined(separator: ", "))], assign: round_robin }\n" }
    try bot.write(toFile: folder + "/bots/desk.yaml", atomically: true, encoding: .utf8)
    let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
    let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:], checkTests: false)
    guard loaded.errors.isEmpty else { throw BenchFailure("the bench config has errors: \(loaded.errors)") }
    // The agents are members of every queue's group; the customers are users only.
    let running = try await RunningHost.make(loaded, options: .init(resolve: resolve, logger: .silent, extraUsers: agents))
    guard await running.start() == ["desk"], let hub = running.hub else { throw BenchFailure("the bot did not start") }
    let resolved = ResolvedTickets(expected: customers)
    var desks: [ChatClient] = []
    for agent in agents {
        let client = try ChatClient(transport: hub.connect(user: agent), configuration: ChatClientConfiguration(registry: running.registry))
        // An agent resolves what is assigned to them, and counts the confirmations.
        await client.setEventHandler { batch in
            for case .message(let message) in batch where message.sender == "desk" {
                guard let text = (message.content as? TextContent)?.text, message.channel.kind == .group else { continue }
                if text.hasSuffix(" assigned to \(agent)."), let number = BenchHandoffText.ticket(in: text) {
                    Task { _ = try? await client.send(TextContent("/resolve \(number)"), to: message.channel) }
                } else if text.hasSuffix(" resolved by \(agent)."), let number = BenchHandoffText.ticket(in: text) {
                    resolved.add(queue: message.channel.id, number: number, agent: agent)
                }
            }
        }
        try await client.connect()
        desks.append(client)
    }
    var senders: [HubTransport] = []
    for index in 0..<customers {
        let id = "c\(index)"
        try hub.addUser(Profile(id: id, name: "Customer \(index)"))
        let transport = try hub.connect(user: id)
        _ = try await transport.connect()
        senders.append(transport)
    }
    let started = ContinuousClock.now
    let cpu = BotBench.cpuSeconds()
    // Customers write in parallel batches, as many people would.
    let lanes = senders
    try await withThrowingTaskGroup(of: Void.self) { group in
        for lane in 0..<8 {
            group.addTask { [lanes] in
                for index in stride(from: lane, to: customers, by: 8) {
                    _ = try await lanes[index].send(OutgoingEnvelope(channel: .person("desk"), clientMessageID: UUID(),
                                                                       payload: TextContent("/h\(index % queues + 1)").encoded()))
                }
            }
        }
        try await group.waitForAll()
    }
    try await withTimeout("all tickets resolved", seconds: 300) { await resolved.waitUntilDone() }
    let elapsed = (ContinuousClock.now - started).timeInterval
    let cpuEach = (BotBench.cpuSeconds() - cpu) / Double(customers)
    // Every ticket once, numbered 1…n in its queue, and the turns even.
    let tickets = resolved.all
    for queue in 1...queues {
        let numbers = tickets.filter { $0.queue == "q\(queue)" }.map(\.number).sorted()
        let count = customers / queues + (queue <= customers % queues ? 1 : 0)
        guard numbers == Array(1...count) else { throw BenchFailure("queue q\(queue): \(numbers.count) tickets resolved, expected 1…\(count) once each") }
        var perAgent: [String: Int] = [:]
        for ticket in tickets where ticket.queue == "q\(queue)" { perAgent[ticket.agent, default: 0] += 1 }
        guard perAgent.count == agentCount, let low = perAgent.values.min(), let high = perAgent.values.max(), high - low <= 1 else {
            throw BenchFailure("queue q\(queue): round robin uneven: \(perAgent.sorted { $0.key < $1.key })")
        }
    }
    let stored = try running.host.store.summary()
    let unresolved = stored.tickets.filter { $0.key.status != .resolved }.values.reduce(0, +)
    guard unresolved == 0 else { throw BenchFailure("\(unresolved) tickets still open in the store") }
    benchLine(String(format: "handoff: %d conversations handed off across %d queues, %d agents round robin, SQLite: %.0f tickets/s "
                     + "through resolution (%.1f s, %.0f µs CPU each; every ticket once, turns even)",
                     customers, queues, agentCount, Double(customers) / elapsed, elapsed, cpuEach * 1e6))
    benchLine("handoff: peak memory \(BotBench.peakMemoryKiB() / 1024) MB (VmHWM)")
    for client in desks { await client.close() }
    for sender in senders { await sender.disconnect() }
    await running.shutdown()
}

enum BenchHandoffText {
    /// N of "Ticket #N …".
    static func ticket(in text: String) -> Int? {
        guard text.hasPrefix("Ticket #") else { return nil }
        return Int(text.dropFirst(8).prefix { $0.isNumber })
    }
}

/// The resolutions the agents saw, and a wait for all of them.
final class ResolvedTickets: Sendable {
    struct Resolution: Sendable { var queue: String; var number: Int; var agent: String }
    private let state = Mutex<(all: [Resolution], waiter: CheckedContinuation<Void, Never>?)>(([], nil))
    let expected: Int

    init(expected: Int) { self.expected = expected }

    func add(queue: String, number: Int, agent: String) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.all.append(Resolution(queue: queue, number: number, agent: agent))
            guard state.all.count >= expected else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    var all: [Resolution] { state.withLock { $0.all } }

    func waitUntilDone() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if state.all.count >= expected { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
