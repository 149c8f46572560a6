import Foundation
import ParleyBots
import ParleyCore
import ParleyCrypto
import ParleyMatrix
import ParleyMatrixCrypto
import ParleyTesting
import Synchronization

/// The broadcast part of `parley-bench matrix-e2ee`: 1,000 recipients (`PARLEY_BENCH_E2EE_RECIPIENTS`),
/// each registered over plain HTTP with one device whose keys (device keys, a few signed one-time
/// keys and a fallback key) come from Parley's own libolm wrapper, and each invited to an
/// encrypted direct room of the sending bot (set up before the clock starts, `m.direct` set).
/// Then two broadcasts as `parley broadcast` sends them (a durable job through the bot's
/// transport, mode `default`, which does not sync), to `user:` recipients:
/// - the first shares a Megolm session per room: a `/keys/query` and a `/keys/claim` for the
///   recipient, an Olm session, an `m.room_key` over `/sendToDevice`, then the event;
/// - the second reuses those sessions: the event alone.
/// Their difference is what the key sharing costs. Every room must then hold exactly two
/// `m.room.encrypted` events of the bot and nothing in clear; 20 recipients, spread over the
/// list, read theirs: their own device (a `MatrixE2EE` over their account) takes the room key
/// from `/sync` and decrypts both to the text sent to them.
func benchMatrixE2EEBroadcast(_ bench: MatrixBench) async throws {
    let count = max(20, Int(bench.environment["PARLEY_BENCH_E2EE_RECIPIENTS"] ?? "") ?? 1_000)
    let sender = try await bench.registrar.register("bench-e2ee-news-\(bench.tag)", password: "pw-\(bench.tag)")
    try await bench.registrar.overrideRateLimit(of: sender.userID, adminToken: bench.adminToken)
    let raw = MatrixClient(homeserver: bench.registrar.homeserver, accessToken: sender.accessToken)

    let setupBegan = ContinuousClock.now
    let recipients = try await BenchRecipient.make(count, bench: bench, sender: raw)
    try await raw.setAccountData(userID: sender.userID, type: "m.direct",
                                 content: .object(Dictionary(uniqueKeysWithValues: recipients.map { ($0.userID, [.string($0.room)]) })))
    benchLine(String(format: "matrix-e2ee broadcast setup: %d recipients registered, each with one device (device keys, %d one-time keys, "
                     + "a fallback key) and invited to an encrypted direct room, in %.0f s (not timed below)",
                     count, BenchRecipient.oneTimeKeys, (ContinuousClock.now - setupBegan).timeInterval))

    let log = BenchLog()
    var configuration = MatrixConfiguration(homeserver: bench.registrar.homeserver, userID: sender.userID,
                                            credentials: .accessToken(sender.accessToken), databasePath: bench.folder + "/news-e2ee.db")
    configuration.log = log.append
    configuration.encryptionMode = .default
    configuration.encryption = MatrixE2EE(store: try MatrixCryptoStore(path: bench.folder + "/news-e2ee.crypto",
                                                                       pickleKey: PickleKey(benchPickleKey)), log: log.append)
    let transport = try MatrixTransport(configuration: configuration)
    // The session, the device's keys and the rooms, before the clock starts.
    _ = try await transport.roomID(for: .person(recipients[0].userID))
    let service = BroadcastService(store: try BroadcastStore(path: bench.folder + "/e2ee-jobs.db"),
                                   configuration: BroadcastConfiguration(concurrency: configuration.concurrentRooms))
    var targets = BroadcastRecipients()
    try targets.append(targets: recipients.map { "user:\($0.userID)" })

    var runs: [BenchE2EEBroadcastRun] = []
    for part in 1...2 {
        let run = try await BenchE2EEBroadcastRun.measure(part: part, service: service, transport: transport, targets: targets,
                                                          sender: sender.userID, tag: bench.tag)
        run.print(count: count)
        runs.append(run)
    }
    let (first, second) = (runs[0], runs[1])
    benchLine(String(format: "matrix-e2ee broadcast key sharing: %.1f ms more per recipient (%.1f s of %.1f s), %.2f ms bot cpu and "
                     + "%.1f ms synapse cpu more per recipient, %.1f more requests per recipient",
                     (first.seconds - second.seconds) / Double(count) * 1000, first.seconds - second.seconds, first.seconds,
                     ((first.cpuMS ?? .nan) - (second.cpuMS ?? .nan)), ((first.synapseMS ?? .nan) - (second.synapseMS ?? .nan)),
                     Double(first.requests.values.reduce(0, +) - second.requests.values.reduce(0, +)) / Double(count)))

    try await BenchRecipient.check(recipients, sender: sender.userID, through: raw, parts: runs.count)
    let problems = log.lines.filter { !$0.contains("waits for the key") }
    benchLine("matrix-e2ee broadcast log: \(problems.count) lines from the bot's transport\(problems.first.map { " (first: \($0))" } ?? "")")
}

/// One timed broadcast and what it took: wall clock, CPU (this process, Synapse) per recipient,
/// and the sender's requests by kind from Synapse's access log.
struct BenchE2EEBroadcastRun {
    let part: Int, sent: Int, failed: Int, seconds: Double
    let cpuMS: Double?, synapseMS: Double?
    /// Requests of the sender by kind (`kinds`: `members` is the member list read before a
    /// room's first key share, `encryption state` the `m.room.encryption` state read once per room).
    let requests: [String: Int]

    static let kinds = ["keys/query", "keys/claim", "sendToDevice", "send", "members", "encryption state", "other"]

    /// The message of `part` to `recipient` (what a reader must decrypt).
    static func text(part: Int, to recipient: String) -> String { "Encrypted news \(part) for \(recipient)" }

    static func measure(part: Int, service: BroadcastService, transport: MatrixTransport, targets: BroadcastRecipients,
                        sender: String, tag: String) async throws -> BenchE2EEBroadcastRun {
        let job = try service.create(id: "bench-e2ee-\(tag)-\(part)", bot: "news", origin: "bench",
                                     message: try BroadcastMessage(text: text(part: part, to: "{{recipient.id}}")), recipients: targets).job
        let log = SynapseAccessLog()
        let (mark, cpu, synapse) = (log.mark(), ProcessCPU.current.seconds(), ProcessCPU.synapse.seconds())
        let began = ContinuousClock.now
        let report = try await service.run(job.id, route: .transport(transport))
        let seconds = (ContinuousClock.now - began).timeInterval
        var requests = Dictionary(uniqueKeysWithValues: kinds.map { ($0, 0) })
        for line in log.lines(by: sender, since: mark) ?? [] {
            let kind = [("/keys/query", "keys/query"), ("/keys/claim", "keys/claim"), ("/sendToDevice/", "sendToDevice"),
                         ("/send/m.room.encrypted/", "send"), ("/members", "members"), ("/state/m.room.encryption", "encryption state")]
                .first { line.contains($0.0) }?.1 ?? "other"
            requests[kind, default: 0] += 1
        }
        return BenchE2EEBroadcastRun(part: part, sent: report.sent, failed: report.failed, seconds: seconds,
                                     cpuMS: ProcessCPU.current.milliseconds(since: cpu, per: report.sent),
                                     synapseMS: ProcessCPU.synapse.milliseconds(since: synapse, per: report.sent), requests: requests)
    }

    func print(count: Int) {
        let what = part == 1 ? "first message, room keys shared" : "second message, sessions already shared"
        let kinds = Self.kinds.map { "\($0) \(requests[$0] ?? 0)" }.joined(separator: ", ")
        benchLine(String(format: "matrix-e2ee broadcast %d (%@): %d of %d sent (%d failed) in %.1f s: %.1f recipients/s; "
                         + "bot cpu %.2f ms, synapse cpu %.1f ms per recipient; requests: %@",
                         part, what, sent, count, failed, seconds, Double(sent) / seconds, cpuMS ?? .nan, synapseMS ?? .nan, kinds))
        if sent != count { benchLine("matrix-e2ee broadcast \(part): FAILED: \(count - sent) recipients not reached") }
    }
}

/// A recipient of the broadcast: an account with one device whose Olm account the bench
/// holds, and the sender's encrypted direct room with it (the recipient is invited).
struct BenchRecipient: Sendable {
    let userID: String, deviceID: String, accessToken: String, room: String
    let account: OlmAccount

    /// One-time keys each recipient publishes (the sender claims one).
    static let oneTimeKeys = 4
    /// Recipients set up at once.
    static let concurrency = 16

    /// Registers `count` recipients, publishes their keys and creates the sender's room with each.
    static func make(_ count: Int, bench: MatrixBench, sender: MatrixClient) async throws -> [BenchRecipient] {
        let base = MatrixClient(homeserver: bench.registrar.homeserver)
        return try await withThrowingTaskGroup(of: BenchRecipient.self) { group in
            var made: [BenchRecipient] = []
            for index in 0..<count {
                if index >= concurrency, let recipient = try await group.next() { made.append(recipient) }
                group.addTask { try await make(index, bench: bench, base: base, sender: sender) }
            }
            for try await recipient in group { made.append(recipient) }
            return made.sorted { $0.userID < $1.userID }
        }
    }

    private static func make(_ index: Int, bench: MatrixBench, base: MatrixClient, sender: MatrixClient) async throws -> BenchRecipient {
        let registered = try await bench.registrar.register(String(format: "bench-e2ee-r%04d-%@", index, bench.tag),
                                                            password: "pw-\(bench.tag)")
        var client = base
        client.accessToken = registered.accessToken
        guard let deviceID = try await client.whoami().deviceID else { throw BenchFailure("\(registered.userID) has no device") }
        let account = try OlmAccount()
        try account.generateOneTimeKeys(count: oneTimeKeys)
        try account.generateFallbackKey()
        try await MatrixDeviceKeys(account: account, userID: registered.userID, deviceID: deviceID)
            .publish(through: client, includeDeviceKeys: true)
        let room = try await sender.createRoom([
            "is_direct": true, "invite": [.string(registered.userID)], "preset": "trusted_private_chat",
            "initial_state": [["type": "m.room.encryption", "state_key": "", "content": ["algorithm": "m.megolm.v1.aes-sha2"]]],
        ])
        return BenchRecipient(userID: registered.userID, deviceID: deviceID, accessToken: registered.accessToken, room: room,
                              account: account)
    }

    /// Every room holds exactly `parts` `m.room.encrypted` events of the sender and none of its
    /// events in clear; 20 recipients decrypt theirs with their own device. Throws otherwise.
    static func check(_ recipients: [BenchRecipient], sender: String, through client: MatrixClient, parts: Int) async throws {
        let events = try await withThrowingTaskGroup(of: (Int, [JSONValue]).self) { group in
            var events: [[JSONValue]] = Array(repeating: [], count: recipients.count)
            for (index, recipient) in recipients.enumerated() {
                if index >= concurrency, let (done, found) = try await group.next() { events[done] = found }
                group.addTask {
                    let chunk = try await client.messages(room: recipient.room, from: nil, direction: "f", limit: 50)["chunk"]?.arrayValue ?? []
                    return (index, chunk.filter { $0["sender"]?.stringValue == sender })
                }
            }
            for try await (done, found) in group { events[done] = found }
            return events
        }
        let wrong = events.indices.filter { index in
            events[index].filter { $0["type"] == "m.room.encrypted" }.count != parts
                || events[index].contains { $0["type"] == "m.room.message" }
        }
        guard wrong.isEmpty else {
            let first = wrong[0]
            throw BenchFailure("matrix-e2ee broadcast: \(wrong.count) rooms do not hold exactly \(parts) encrypted events of the bot "
                               + "(first: \(recipients[first].room), types \(events[first].compactMap { $0["type"]?.stringValue }))")
        }
        benchLine("matrix-e2ee broadcast check: all \(recipients.count) rooms hold exactly \(parts) m.room.encrypted events of the bot, none in clear")

        let sample = Array(stride(from: 0, to: recipients.count, by: recipients.count / 20).prefix(20))
        var read = 0
        for index in sample {
            read += try await recipients[index].decrypt(events[index].filter { $0["type"] == "m.room.encrypted" }, base: client)
        }
        guard read == sample.count * parts else {
            throw BenchFailure("matrix-e2ee broadcast: the sample of \(sample.count) recipients decrypted \(read) of \(sample.count * parts) messages")
        }
        benchLine("matrix-e2ee broadcast read: \(sample.count) recipients (1 in \(recipients.count / 20)) took the room key from /sync "
                  + "with their own device and decrypted all \(read) of their messages to the text sent to them")
    }

    /// This recipient's device, as a Parley device would be: its account in a crypto store,
    /// the to-device room key from `/sync`, then the events decrypted. Returns how many
    /// decrypted to the expected text (in order, parts 1, 2, …).
    private func decrypt(_ events: [JSONValue], base: MatrixClient) async throws -> Int {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-reader-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try MatrixCryptoStore(path: folder + "/crypto.db", pickleKey: PickleKey(benchPickleKey))
        try await store.storeAccount(account, userID: userID, deviceID: deviceID)
        let device = MatrixE2EE(store: store)
        var client = base
        client.accessToken = accessToken
        try await device.start(client: client, userID: userID, deviceID: deviceID, password: nil)
        try await device.handleSync(try await client.sync(filterID: nil, since: nil, timeout: .zero), client: client)
        var read = 0
        for (part, event) in zip(1..., events) {
            guard case .decrypted(let clear) = await device.decrypt(event, room: room) else { continue }
            if clear["content"]?["body"]?.stringValue == BenchE2EEBroadcastRun.text(part: part, to: userID) { read += 1 }
        }
        return read
    }
}

/// Log lines of the bot's transport and encryption (any thread).
final class BenchLog: Sendable {
    private let state = Mutex<[String]>([])
    var lines: [String] { state.withLock { $0 } }
    func append(_ line: String) { state.withLock { $0.append(line) } }
}
