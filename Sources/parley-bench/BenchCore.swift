import Foundation
import ParleyCore
import ParleyHub
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Core SDK figures, one line each: messages/s from one `ChatClient` to another through the
/// embedded hub, with in-memory storage and with SQLite everywhere (durable: the hub and the
/// sender's outbox commit before a send is acknowledged; group commit), and the resident bytes
/// one idle conversation costs a client.
func benchCore() async throws {
    // PARLEY_BENCH_CORE=memory|sqlite|idle runs one part (for profiling); all by default.
    let only = ProcessInfo.processInfo.environment["PARLEY_BENCH_CORE"]
    // Idle conversations first: later runs leave freed heap behind that would hide the growth.
    if only == nil || only == "idle" {
        let idle = try await benchCoreIdleConversations(count: 50_000)
        print(String(format: "core.idle_conversation: %.0f bytes each (%d conversations with one message, memory storage, RSS growth)", idle, 50_000))
    }
    if only == nil || only == "memory" {
        let memory = try await benchCoreThroughput(durable: false, count: 300_000)
        print(String(format: "core.send_receive.memory: %.0f msg/s (%d messages, one client to another through the hub; %.1f µs CPU each)",
                     memory.rate, memory.count, memory.cpuMicros))
    }
    if only == nil || only == "sqlite" {
        let durable = try await benchCoreThroughput(durable: true, count: 100_000)
        print(String(format: "core.send_receive.sqlite: %.0f msg/s (%d messages, hub, outbox and history in SQLite WAL; %.1f µs CPU each)",
                     durable.rate, durable.count, durable.cpuMicros))
    }
}

/// Sends `count` texts in batches (a few in flight), counting what the receiver's event
/// stream delivers; the time runs until the last one arrived.
private func benchCoreThroughput(durable: Bool, count: Int) async throws -> (rate: Double, count: Int, cpuMicros: Double) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-core-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let hubPath = durable ? directory.appendingPathComponent("hub.sqlite").path : ":memory:"
    let hub = try Hub(path: hubPath, configuration: HubConfiguration(eventBufferLimit: 1 << 22))
    try hub.addUser(Profile(id: "sender", name: "Sender"))
    try hub.addUser(Profile(id: "receiver", name: "Receiver"))
    func configuration(_ name: String) -> ChatClientConfiguration {
        ChatClientConfiguration(storage: durable ? .sqlite(path: directory.appendingPathComponent("\(name).sqlite").path) : .memory,
                                senderProfile: Profile(id: name, name: name.capitalized))
    }
    let sender = try ChatClient(transport: try hub.connect(user: "sender"), configuration: configuration("sender"))
    let receiver = try ChatClient(transport: try hub.connect(user: "receiver"), configuration: configuration("receiver"))
    let events = await receiver.events()
    try await receiver.connect()
    try await sender.connect()

    let received = Atomic<Int>(0)
    let start = ContinuousClock.now
    let cpuStart = processCPUSeconds()
    let consumer = Task {
        for await event in events {
            guard case .message = event else { continue }
            if received.add(1, ordering: .relaxed).newValue >= count { break }
        }
    }
    let chunk = 1_000
    let contents: [any MessageContent] = (0..<chunk).map { TextContent("message number \($0)") }
    try await withThrowingTaskGroup(of: Void.self) { group in
        var queued = 0
        var inFlight = 0
        while queued < count {
            if inFlight == 4 {
                try await group.next()
                inFlight -= 1
            }
            // Keep the sender at most 50,000 ahead of the receiver (bounded memory).
            while queued - received.load(ordering: .relaxed) > 50_000 { try await Task.sleep(for: .milliseconds(1)) }
            let size = min(chunk, count - queued)
            group.addTask {
                let results = await sender.batchSend(Array(contents[0..<size]), to: [.person("receiver")], options: SendOptions())
                for result in results { _ = try result.get() }
            }
            queued += size
            inFlight += 1
        }
        try await group.waitForAll()
    }
    await consumer.value
    let seconds = (ContinuousClock.now - start).timeInterval
    let cpu = processCPUSeconds() - cpuStart
    await sender.close()
    await receiver.close()
    try hub.close()
    return (Double(count) / seconds, count, cpu / Double(count) * 1e6)
}

/// Resident bytes per conversation: `count` local conversations with one message each.
private func benchCoreIdleConversations(count: Int) async throws -> Double {
    let hub = try Hub()
    try hub.addUser(Profile(id: "idle"))
    let client = try ChatClient(transport: try hub.connect(user: "idle"))
    let channels = (0..<count).map { Channel(kind: .local, id: "conversation-\($0)") }
    let before = heapBytes()
    for (index, channel) in channels.enumerated() {
        try await client.insertLocalMessage(TextContent("last message \(index)"), into: channel)
    }
    let after = heapBytes()
    let conversations = await client.conversations().count
    guard conversations == count else { throw ParleyError(.serverError, "expected \(count) conversations, found \(conversations)") }
    return Double(after - before) / Double(count)
}

/// The resident set size now, from /proc/self/statm (resident pages × page size).
private func heapBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// CPU time used by the whole process so far (all threads), in seconds: on a shared machine
/// the wall-clock rate depends on the load, this does much less.
private func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
