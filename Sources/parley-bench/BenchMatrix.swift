import Foundation
import ParleyBots
import ParleyCore
import ParleyMatrix

/// `parley-bench matrix`: the example support bot on a live Synapse (`eval "$(scripts/synapse
/// start)"` first; run from the repository root) beside the matrix-nio yardstick, three drives
/// each, alternating (`BenchMatrixBot.swift`); then a 5,000-delivery broadcast through the core
/// SDK next to the rate a bare HTTP client creates events (`scripts/matrix-bench.py ceiling`,
/// before and after). Rate limits of the bench accounts are lifted with the admin override API.
/// One line per figure.
func benchMatrix() async throws {
    try await benchMatrix(bot: true, broadcast: true)
}

/// `parley-bench matrix-bot`: only the support bot and the yardstick.
func benchMatrixBotOnly() async throws {
    try await benchMatrix(bot: true, broadcast: false)
}

/// `parley-bench matrix-broadcast`: only the broadcast and the ceiling.
func benchMatrixBroadcastOnly() async throws {
    try await benchMatrix(bot: false, broadcast: true)
}

private func benchMatrix(bot: Bool, broadcast: Bool) async throws {
    guard let bench = try await MatrixBench.start("matrix") else { return }
    if bot {
        try await benchMatrixBot(registrar: bench.registrar, secret: bench.secret, adminToken: bench.adminToken, python: bench.python,
                                 folder: bench.folder, tag: bench.tag, environment: bench.environment)
    }
    if broadcast {
        try await benchMatrixBroadcast(registrar: bench.registrar, adminToken: bench.adminToken, python: bench.python,
                                       folder: bench.folder, tag: bench.tag)
    }
}

/// What every Matrix bench starts from: the Synapse of `scripts/synapse start` (from the
/// environment it exports), an admin account, the matrix-nio venv's python, a fresh temporary
/// folder and a tag that makes the run's account names unique.
struct MatrixBench {
    let registrar: MatrixRegistrar, secret: String, adminToken: String, python: String, folder: String, tag: String
    let environment: [String: String]

    /// Nil (with a line saying `area` is skipped) when no Synapse is configured.
    static func start(_ area: String) async throws -> MatrixBench? {
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment["PARLEY_MATRIX_HOMESERVER"], let homeserver = URL(string: text),
              let secret = environment["PARLEY_MATRIX_SHARED_SECRET"]
        else {
            benchLine("\(area): skipped (start Synapse first: eval \"$(scripts/synapse start)\")")
            return nil
        }
        let python = environment["PARLEY_MATRIX_PYTHON"]
            ?? (environment["PARLEY_SYNAPSE_HOME"] ?? NSHomeDirectory() + "/.cache/parley/synapse") + "/venv/bin/python"
        let registrar = MatrixRegistrar(homeserver: homeserver, sharedSecret: secret)
        let tag = String(UUID().uuidString.lowercased().prefix(8))
        let admin = try await registrar.register("bench-admin-\(tag)", password: "pw-\(tag)", admin: true)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(area)-\(tag)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return MatrixBench(registrar: registrar, secret: secret, adminToken: admin.accessToken, python: python, folder: folder,
                           tag: tag, environment: environment)
    }
}

/// 5,000 deliveries (100 rooms × 50 messages) through `ChatClient.batchSend`, between two
/// measurements of the ceiling (2,500 events each, to the same rooms): the machine is shared,
/// so the ratio is taken against the mean of the ceiling right before and right after.
private func benchMatrixBroadcast(registrar: MatrixRegistrar, adminToken: String, python: String, folder: String,
                                  tag: String) async throws {
    let sender = try await registrar.register("bench-news-\(tag)", password: "pw-\(tag)")
    try await registrar.overrideRateLimit(of: sender.userID, adminToken: adminToken)
    let raw = MatrixClient(homeserver: registrar.homeserver, accessToken: sender.accessToken)
    let rooms = try await withThrowingTaskGroup(of: String.self) { group in
        var rooms: [String] = []
        for index in 0..<100 {
            if index >= 8, let room = try await group.next() { rooms.append(room) }
            group.addTask { try await raw.createRoom(["preset": "private_chat"]) }
        }
        for try await room in group { rooms.append(room) }
        return rooms
    }
    let roomsFile = folder + "/rooms.txt"
    try Data(rooms.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: roomsFile))
    let synapse = ProcessCPU.synapse
    let ceilingArguments = [python, "scripts/matrix-bench.py", "ceiling", "--homeserver", registrar.homeserver.absoluteString,
                            "--token", sender.accessToken, "--rooms-file", roomsFile, "--count", "2500"]
    let before = try await benchCeiling(ceilingArguments, name: "before", folder: folder, synapse: synapse)

    var configuration = MatrixConfiguration(homeserver: registrar.homeserver, userID: sender.userID,
                                            credentials: .accessToken(sender.accessToken), databasePath: folder + "/news.db")
    configuration.log = { _ in }
    let client = try ChatClient(transport: try MatrixTransport(configuration: configuration))
    try await client.connect()
    let contents = (0..<50).map { TextContent("news item \($0)") }
    let cpu = synapse.seconds()
    let ownCPU = ProcessCPU.current.seconds()
    let began = ContinuousClock.now
    let results = await client.batchSend(contents, to: rooms.map(Channel.group))
    let seconds = (ContinuousClock.now - began).timeInterval
    let ownPerDelivery = ProcessCPU.current.milliseconds(since: ownCPU, per: results.count)
    await client.close()
    let failed = results.filter { if case .failure = $0 { true } else { false } }.count
    let rate = Double(results.count - failed) / seconds
    benchLine(String(format: "matrix broadcast: %d deliveries (100 rooms × 50) in %.1f s: %.0f recipients/s (%d failed, %d rooms at once)",
                 results.count, seconds, rate, failed, configuration.concurrentRooms))
    synapse.report("broadcast", since: cpu, events: results.count)
    benchLine(String(format: "matrix broadcast cpu (this process): %.2f ms per delivery", ownPerDelivery ?? .nan))

    // The same 5,000 deliveries as `parley broadcast` sends them: durable jobs (50 messages,
    // each to the 100 rooms, 16 at once) through the account's transport, which does not sync.
    let service = BroadcastService(store: try BroadcastStore(path: folder + "/jobs.db"),
                                   configuration: BroadcastConfiguration(concurrency: configuration.concurrentRooms))
    configuration.databasePath = folder + "/news-jobs.db"
    let jobTransport = try MatrixTransport(configuration: configuration)
    var recipients = BroadcastRecipients()
    try recipients.append(targets: rooms.map { "group:\($0)" })
    let jobCPU = synapse.seconds()
    let jobOwnCPU = ProcessCPU.current.seconds()
    let jobBegan = ContinuousClock.now
    var jobSent = 0
    for index in 0..<50 {
        let job = try service.create(id: "bench-\(tag)-\(index)", bot: "news", origin: "bench",
                                     message: try BroadcastMessage(text: "job item \(index)"), recipients: recipients).job
        jobSent += try await service.run(job.id, route: .transport(jobTransport)).sent
    }
    let jobRate = Double(jobSent) / (ContinuousClock.now - jobBegan).timeInterval
    benchLine(String(format: "matrix broadcast jobs (as parley broadcast sends them, no sync): %d of 5000 sent, %.0f recipients/s",
                     jobSent, jobRate))
    synapse.report("broadcast jobs", since: jobCPU, events: jobSent)
    benchLine(String(format: "matrix broadcast jobs cpu (this process): %.2f ms per delivery",
                     ProcessCPU.current.milliseconds(since: jobOwnCPU, per: jobSent) ?? .nan))

    let after = try await benchCeiling(ceilingArguments, name: "after", folder: folder, synapse: synapse)
    if let before, let after {
        let mean = (before + after) / 2
        benchLine(String(format: "matrix broadcast vs ceiling: %.0f%% through a connected client, %.0f%% as jobs (ceiling %.0f before, %.0f after, mean %.0f events/s)",
                         rate / mean * 100, jobRate / mean * 100, before, after, mean))
    }
}

/// One run of the bare client's ceiling (2,500 events); its events/s, and Synapse's CPU per event.
private func benchCeiling(_ arguments: [String], name: String, folder: String, synapse: ProcessCPU) async throws -> Double? {
    let cpu = synapse.seconds()
    let resultFile = folder + "/ceiling-\(name).txt"
    _ = try await runBenchScript(arguments + ["--result-file", resultFile], timeout: 600)
    synapse.report("ceiling \(name)", since: cpu, events: 2_500)
    return (try? String(contentsOfFile: resultFile, encoding: .utf8)).flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
}

/// Starts a driver script with its output passed through.
func startBenchScript(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    try process.run()
    return process
}

/// Runs a driver script to its end; kills it after `timeout` seconds. Waits without blocking
/// a thread of the cooperative pool (the bot under test runs in this process).
func runBenchScript(_ arguments: [String], timeout: Double) async throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    let exited = AsyncStream<Void> { continuation in
        process.terminationHandler = { _ in continuation.finish() }
    }
    try process.run()
    let killer = Task {
        try await Task.sleep(for: .seconds(timeout))
        benchLine("matrix: \(arguments[1]) did not finish within \(Int(timeout)) s")
        kill(process.processIdentifier, SIGKILL)
    }
    for await _ in exited {}
    killer.cancel()
    return process.terminationStatus
}

/// Prints a figure at once (the driver script writes to the same output in between).
func benchLine(_ line: String) {
    print(line)
    fflush(nil)
}
