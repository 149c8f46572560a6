import Foundation
import ParleyCore
import ParleyHub
import Synchronization

/// Hub figures, one line each: messages/s from one transport to another (the receiver
/// consumes its stream) in memory and in SQLite, and memory per idle conversation.
func benchHub() async throws {
    let count = 300_000
    let alone = try await hubSendOnly(messages: count)
    print("hub memory send only (receiver offline; the hub's own cost): \(alone)")
    let memory = try await hubThroughput(path: ":memory:", messages: count, inFlight: 1)
    print("hub memory send→receive, 1 in flight: \(memory)")
    let memoryWindow = try await hubThroughput(path: ":memory:", messages: count, inFlight: 64)
    print("hub memory send→receive, 64 in flight: \(memoryWindow)")
    let memoryBatch = try await hubThroughput(path: ":memory:", messages: count, inFlight: 4, batch: 256)
    print("hub memory send→receive, sendBatch of 256, 4 in flight: \(memoryBatch)")

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let single = try await hubThroughput(path: directory.appendingPathComponent("one.sqlite").path, messages: 20_000, inFlight: 1)
    print("hub sqlite send→receive, 1 in flight (a COMMIT per message): \(single)")
    let grouped = try await hubThroughput(path: directory.appendingPathComponent("group.sqlite").path, messages: 200_000, inFlight: 64)
    print("hub sqlite send→receive, 64 in flight (group commit): \(grouped)")
    let batched = try await hubThroughput(path: directory.appendingPathComponent("batch.sqlite").path, messages: 200_000, inFlight: 4, batch: 256)
    print("hub sqlite send→receive, sendBatch of 256, 4 in flight: \(batched)")

    let perConversation = try await hubBytesPerIdleConversation(conversations: 100_000)
    print("hub memory per idle conversation (100,000 person channels, 1 message each, users included): \(perConversation) bytes")
}

/// Sends `messages` texts from one transport to another with `inFlight` sends (of `batch`
/// messages each) running at once; returns messages/s until the receiver consumed the last.
private func hubThroughput(path: String, messages: Int, inFlight: Int, batch: Int = 1) async throws -> HubFigure {
    let hub = try Hub(path: path)
    try hub.addUser(Profile(id: "sender"))
    try hub.addUser(Profile(id: "receiver"))
    let sender = try hub.connect(user: "sender")
    let stream = try await hub.connect(user: "receiver").connect()
    let payload: JSONValue = ["type": 1, "text": "hello, this is a benchmark message"]

    // The sender stays at most `window` messages ahead of the receiver, well inside the
    // hub's per-connection buffer, as a client with flow control would.
    let window = 16_384
    let progress = BenchProgress()
    let start = ContinuousClock.now
    let cpuStart = processCPUSeconds()
    let consumer = Task {
        var received = 0
        for await event in stream {
            guard case .message = event else { continue }
            received += 1
            if received & 255 == 0 { progress.received.store(received, ordering: .relaxed) }
            if received == messages { break }
        }
        return received
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        let perTask = messages / inFlight
        for lane in 0..<inFlight {
            let share = lane == inFlight - 1 ? messages - perTask * (inFlight - 1) : perTask
            group.addTask {
                var left = share
                while left > 0 {
                    var waits = 0
                    while progress.sent.load(ordering: .relaxed) - progress.received.load(ordering: .relaxed) > window {
                        waits += 1
                        guard waits < 100_000 else { throw ParleyError(.timeout, "receiver stalled") }
                        try await Task.sleep(for: .microseconds(100))
                    }
                    let size = min(batch, left)
                    if size == 1 {
                        _ = try await sender.send(OutgoingEnvelope(channel: .person("receiver"), clientMessageID: randomUUID(), payload: payload))
                    } else {
                        let envelopes = (0..<size).map { _ in OutgoingEnvelope(channel: .person("receiver"), clientMessageID: randomUUID(), payload: payload) }
                        for result in await sender.sendBatch(envelopes) { _ = try result.get() }
                    }
                    progress.sent.add(size, ordering: .relaxed)
                    left -= size
                }
            }
        }
        try await group.waitForAll()
    }
    let received = await consumer.value
    let figure = HubFigure(messages: messages, seconds: (ContinuousClock.now - start).timeInterval, cpuSeconds: processCPUSeconds() - cpuStart)
    try hub.close()
    guard received == messages else { throw ParleyError(.serverError, "receiver got \(received) of \(messages)") }
    return figure
}

/// Messages/s of one sender while nobody is online: the hub's own cost per message,
/// without waking a receiver.
private func hubSendOnly(messages: Int) async throws -> HubFigure {
    let hub = try Hub()
    try hub.addUser(Profile(id: "sender"))
    try hub.addUser(Profile(id: "receiver"))
    let sender = try hub.connect(user: "sender")
    let payload: JSONValue = ["type": 1, "text": "hello, this is a benchmark message"]
    let outgoing = (0..<messages).map { _ in OutgoingEnvelope(channel: .person("receiver"), clientMessageID: randomUUID(), payload: payload) }
    let start = ContinuousClock.now
    let cpuStart = processCPUSeconds()
    for message in outgoing { _ = try await sender.send(message) }
    return HubFigure(messages: messages, seconds: (ContinuousClock.now - start).timeInterval, cpuSeconds: processCPUSeconds() - cpuStart)
}

/// Resident memory added by `conversations` person channels with one message each,
/// divided by their number.
private func hubBytesPerIdleConversation(conversations: Int) async throws -> Int {
    let before = residentBytes()
    let hub = try Hub(path: ":memory:")
    try hub.addUser(Profile(id: "bench"))
    for index in 0..<conversations { try hub.addUser(Profile(id: "user\(index)")) }
    let sender = try hub.connect(user: "bench")
    let payload: JSONValue = ["type": 1, "text": "hi"]
    for index in 0..<conversations {
        _ = try await sender.send(OutgoingEnvelope(channel: .person("user\(index)"), clientMessageID: randomUUID(), payload: payload))
    }
    let after = residentBytes()
    guard hub.channelCount == conversations else {
        throw ParleyError(.serverError, "expected \(conversations) channels, have \(hub.channelCount)")
    }
    return (after - before) / conversations
}

/// The process's resident set size, from /proc/self/statm.
private func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Counters shared by the benchmark's sender lanes and its receiver.
private final class BenchProgress: Sendable {
    let sent = Atomic<Int>(0)
    let received = Atomic<Int>(0)
}

/// A throughput figure: wall-clock rate, and CPU time per message (all threads), which
/// stays comparable when the machine is shared.
private struct HubFigure: CustomStringConvertible {
    let messages: Int
    let seconds: Double
    let cpuSeconds: Double

    var description: String {
        let rate = Int(Double(messages) / seconds)
        let micros = cpuSeconds / Double(messages) * 1e6
        return "\(rate) msg/s, \((micros * 100).rounded() / 100) µs CPU per message"
    }
}

/// CPU time used by the whole process so far (user + system, all threads).
private func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

/// A version 4 UUID from the system generator. Foundation's `UUID()` opens, reads and
/// closes /dev/urandom on every call here (three syscalls), which would dominate figures
/// that are meant to measure the hub.
private func randomUUID() -> UUID {
    var generator = SystemRandomNumberGenerator()
    var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &raw) { bytes in
        bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: 0, as: UInt64.self)
        bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: 8, as: UInt64.self)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
    }
    return UUID(uuid: raw)
}
