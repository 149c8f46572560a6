import Foundation
import ParleyCore
import ParleyHub
import Synchronization

/// Hub figures, one line each: messages/s from one transport to another (the receiver
/// consumes its stream) in memory and in SQLite, and memory per idle conversation.
func benchHub() async throws {
    let count = 300_000
    let alone = try await hubSendOnly(messages: count)
    print("hub memory send only (receiver offline; the hub's own cost): \(Int(alone)) msg/s")
    let memory = try await hubThroughput(path: ":memory:", messages: count, inFlight: 1)
    print("hub memory send→receive, 1 in flight: \(Int(memory)) msg/s")
    let memoryWindow = try await hubThroughput(path: ":memory:", messages: count, inFlight: 64)
    print("hub memory send→receive, 64 in flight: \(Int(memoryWindow)) msg/s")
    let memoryBatch = try await hubThroughput(path: ":memory:", messages: count, inFlight: 4, batch: 256)
    print("hub memory send→receive, sendBatch of 256, 4 in flight: \(Int(memoryBatch)) msg/s")

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let single = try await hubThroughput(path: directory.appendingPathComponent("one.sqlite").path, messages: 20_000, inFlight: 1)
    print("hub sqlite send→receive, 1 in flight (a COMMIT per message): \(Int(single)) msg/s")
    let grouped = try await hubThroughput(path: directory.appendingPathComponent("group.sqlite").path, messages: 200_000, inFlight: 64)
    print("hub sqlite send→receive, 64 in flight (group commit): \(Int(grouped)) msg/s")
    let batched = try await hubThroughput(path: directory.appendingPathComponent("batch.sqlite").path, messages: 200_000, inFlight: 4, batch: 256)
    print("hub sqlite send→receive, sendBatch of 256, 4 in flight: \(Int(batched)) msg/s")

    let perConversation = try await hubBytesPerIdleConversation(conversations: 100_000)
    print("hub memory per idle conversation (100,000 person channels, 1 message each, users included): \(perConversation) bytes")
}

/// Sends `messages` texts from one transport to another with `inFlight` sends (of `batch`
/// messages each) running at once; returns messages/s until the receiver consumed the last.
private func hubThroughput(path: String, messages: Int, inFlight: Int, batch: Int = 1) async throws -> Double {
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
                        _ = try await sender.send(OutgoingEnvelope(channel: .person("receiver"), payload: payload))
                    } else {
                        let envelopes = (0..<size).map { _ in OutgoingEnvelope(channel: .person("receiver"), payload: payload) }
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
    let elapsed = ContinuousClock.now - start
    try hub.close()
    guard received == messages else { throw ParleyError(.serverError, "receiver got \(received) of \(messages)") }
    return Double(messages) / elapsed.timeInterval
}

/// Messages/s of one sender while nobody is online: the hub's own cost per message,
/// without waking a receiver.
private func hubSendOnly(messages: Int) async throws -> Double {
    let hub = try Hub()
    try hub.addUser(Profile(id: "sender"))
    try hub.addUser(Profile(id: "receiver"))
    let sender = try hub.connect(user: "sender")
    let payload: JSONValue = ["type": 1, "text": "hello, this is a benchmark message"]
    let outgoing = (0..<messages).map { _ in OutgoingEnvelope(channel: .person("receiver"), payload: payload) }
    let start = ContinuousClock.now
    for message in outgoing { _ = try await sender.send(message) }
    return Double(messages) / (ContinuousClock.now - start).timeInterval
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
        _ = try await sender.send(OutgoingEnvelope(channel: .person("user\(index)"), payload: payload))
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
