import Foundation
import ParleyTesting
import ParleyHosting
import ParleyMatrix

/// The support bot, hosted as `parley run` hosts it (`RunningHost`: SQLite stores, the Matrix
/// transport), driven by a matrix-nio user (`scripts/matrix-bench.py bot`); then the same drive
/// against the yardstick, a hand-written matrix-nio bot answering one message at a time
/// (`scripts/matrix-bench.py reference`). Three drives each, alternating, so every ratio comes
/// from one run on this shared machine. Each drive: 100 commands one at a time, a 300-command
/// burst in one room, 20 rooms × 30 at once — 1,021 commands with the warm-ups, each answered
/// once with its own order number ("Looking up order N …"), or the bench fails.
///
/// Per drive and bot: its process's CPU per answer (from `/proc`: the bench process hosts
/// Parley and does nothing else meanwhile; the yardstick's own process, measured from its
/// first sync), Synapse's CPU per answer, and the bot's requests per answer (Synapse's access log).
func benchMatrixBot(registrar: MatrixRegistrar, secret: String, adminToken: String, python: String, folder: String,
                    tag: String, environment: [String: String]) async throws {
    let homeserver = registrar.homeserver
    let account = try await registrar.register("bench-support-\(tag)", password: "pw-\(tag)")
    try await registrar.overrideRateLimit(of: account.userID, adminToken: adminToken)
    guard let host = try await startSupportBot(account: account, homeserver: homeserver, folder: folder, environment: environment)
    else { return }

    let reference = try await registrar.register("bench-reference-\(tag)", password: "pw-\(tag)")
    try await registrar.overrideRateLimit(of: reference.userID, adminToken: adminToken)
    let readyFile = folder + "/reference.ready"
    let yardstick = try startBenchScript([python, "scripts/matrix-bench.py", "reference", "--homeserver", homeserver.absoluteString,
                                          "--user", reference.userID, "--token", reference.accessToken, "--seconds", "3600",
                                          "--ready-file", readyFile])
    defer {
        // SIGKILL: a child of a Swift process may have SIGTERM blocked (inherited mask).
        kill(yardstick.processIdentifier, SIGKILL)
        yardstick.waitUntilExit()
    }
    try await waitForFile(readyFile, seconds: 60)

    let driver = BotDriver(python: python, homeserver: homeserver.absoluteString, secret: secret, adminToken: adminToken,
                           folder: folder)
    var ours: [[String: Double]] = [], theirs: [[String: Double]] = []
    // PARLEY_BENCH_MATRIX_RUNS=1 for a quick look; the figures quoted are from 3.
    let runs = max(1, Int(environment["PARLEY_BENCH_MATRIX_RUNS"] ?? "") ?? 3)
    for run in 1...runs {
        ours.append(try await driver.drive(account.userID, label: "matrix parley run \(run)", cpu: .current))
        theirs.append(try await driver.drive(reference.userID, label: "matrix nio run \(run)",
                                             cpu: ProcessCPU(pid: String(yardstick.processIdentifier))))
    }
    await host.shutdown()
    MatrixBotSummary(area: "matrix", names: ("parley", "nio"), ours: ours, theirs: theirs).print()
}

/// Writes a config of the matrix transport with the support bot alone and starts it as
/// `parley run` would; nil (with a line saying why) when run outside the repository root.
/// `PARLEY_BENCH_MATRIX_STORAGE=memory` keeps nothing on disk: what the stores cost per
/// answer, by difference (an experiment; the quoted figures are with SQLite). With a
/// `pickleKey`, end-to-end encryption is on (`transport.encryption`, mode `allow`: plain and
/// encrypted rooms alike; the crypto store beside the account's database in `folder`).
func startSupportBot(account: MatrixRegistrar.Account, homeserver: URL, folder: String,
                     environment: [String: String], pickleKey: String? = nil) async throws -> RunningHost? {
    guard let bot = FileManager.default.contents(atPath: "bots/support.yaml") else {
        benchLine("matrix: skipped (run from the repository root: bots/support.yaml not found)")
        return nil
    }
    try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
    try bot.write(to: URL(fileURLWithPath: folder + "/bots/support.yaml"))
    // A room per hand-off queue of the bot (no order of the drive is handed off; the config needs them).
    let client = MatrixClient(homeserver: homeserver, accessToken: account.accessToken)
    var queueRooms: [String] = []
    for queue in ["agents", "phone", "supervisors"] {
        queueRooms.append("    \(queue): \"\(try await client.createRoom(["preset": "private_chat"]))\"")
    }
    let configFile = folder + "/config.yaml"
    try Data("""
        transport:
          kind: matrix
          homeserver: \(homeserver.absoluteString)
          accounts:
            support: { user: "\(account.userID)", access_token: "\(account.accessToken)" }
          rooms:
        \(queueRooms.joined(separator: "\n"))
        \(pickleKey.map { "  encryption: { mode: allow, pickle_key: \"\($0)\" }" } ?? "")
        storage:
          path: "\(environment["PARLEY_BENCH_MATRIX_STORAGE"] == "memory" ? ":memory:" : folder + "/parley.db")"
        bots: \(folder)/bots
        log:
          level: warn
        """.utf8).write(to: URL(fileURLWithPath: configFile))
    let loaded = HostLoader.load(configFile: configFile, resolve: { $0 }, environment: environment, checkTests: false)
    guard loaded.errors.isEmpty else { throw BenchFailure("the bench config has errors: \(loaded.errors)") }
    let logger = HostLogging.logger(for: loaded.config) { _, line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    let host = try await RunningHost.make(loaded, options: .init(resolve: { $0 }, logger: logger))
    guard await host.start() == ["support"] else { throw BenchFailure("the support bot did not start") }
    return host
}

/// Runs `scripts/matrix-bench.py bot` against one bot and measures around it.
struct BotDriver {
    let python: String, homeserver: String, secret: String, adminToken: String, folder: String

    /// One drive (`encrypted`: by a matrix-nio client with end-to-end encryption, in encrypted
    /// rooms); its figures (the driver's, plus `cpu_ms`, `synapse_ms`, `requests`, per answer).
    /// Throws when an order went unanswered, was answered twice or with a wrong text, or (encrypted)
    /// an answer could not be decrypted.
    func drive(_ bot: String, label: String, cpu: ProcessCPU, encrypted: Bool = false) async throws -> [String: Double] {
        let resultFile = folder + "/\(label.replacingOccurrences(of: " ", with: "-")).json"
        let log = SynapseAccessLog()
        let (mark, botStart, synapseStart) = (log.mark(), cpu.seconds(), ProcessCPU.synapse.seconds())
        let status = try await runBenchScript([python, "scripts/matrix-bench.py", "bot", "--homeserver", homeserver,
                                               "--secret", secret, "--admin-token", adminToken, "--bot", bot,
                                               "--result-file", resultFile, "--label", label] + (encrypted ? ["--encrypted"] : []),
                                              timeout: 900)
        guard let data = FileManager.default.contents(atPath: resultFile),
              var figures = try? JSONDecoder().decode([String: Double].self, from: data),
              let answered = figures["answered"].map(Int.init)
        else { throw BenchFailure("\(label): the driver wrote no figures (exit \(status))") }
        guard status == 0 else {
            throw BenchFailure("\(label): \(Int(figures["lost"] ?? 0)) orders unanswered, \(Int(figures["twice"] ?? 0)) answered twice, "
                               + "\(Int(figures["wrong"] ?? 0)) with a wrong text, \(Int(figures["undecrypted"] ?? 0)) not decryptable")
        }
        figures["cpu_ms"] = cpu.milliseconds(since: botStart, per: answered)
        figures["synapse_ms"] = ProcessCPU.synapse.milliseconds(since: synapseStart, per: answered)
        figures["requests"] = log.requests(by: bot, since: mark).map { Double($0) / Double(answered) }
        benchLine(String(format: "%@: bot cpu %.2f ms, synapse cpu %.1f ms, %.2f bot requests per answer (%d answers)",
                         label, figures["cpu_ms"] ?? .nan, figures["synapse_ms"] ?? .nan, figures["requests"] ?? .nan, answered))
        return figures
    }
}

/// The three runs of each side (`names`: Parley and the yardstick, or encrypted and plain
/// rooms) side by side: median and spread of every figure, and the ratio ours / theirs, checked
/// against `targets` (figure key → the largest ratio allowed) where one is given.
struct MatrixBotSummary {
    let area: String, names: (ours: String, theirs: String)
    let ours: [[String: Double]], theirs: [[String: Double]]
    var targets: [String: Double] = [:]
    /// Also the driver's own CPU per answer (matrix-nio in Python; with encryption, its crypto).
    var showsDriver = false

    func print() {
        line("bot cpu per answer", "cpu_ms", "%.2f ms")
        line("round trip p50", "p50", "%.0f ms")
        line("round trip p99", "p99", "%.0f ms")
        line("burst", "burst", "%.1f replies/s")
        line("20 rooms", "multi_room", "%.1f replies/s")
        line("synapse cpu per answer", "synapse_ms", "%.1f ms")
        line("bot requests per answer", "requests", "%.2f")
        if showsDriver { line("driver (matrix-nio) cpu per answer", "driver_cpu_ms", "%.2f ms") }
    }

    private func line(_ name: String, _ key: String, _ format: String) {
        let ours = self.ours.compactMap { $0[key] }.sorted(), theirs = self.theirs.compactMap { $0[key] }.sorted()
        guard !ours.isEmpty, !theirs.isEmpty else { return benchLine("\(area) \(name): not measured") }
        func text(_ values: [Double]) -> String {
            String(format: format, values[values.count / 2])
                + String(format: " (%@–%@)", String(format: format, values[0]), String(format: format, values[values.count - 1]))
        }
        let ratio = theirs[theirs.count / 2] == 0 ? Double.nan : ours[ours.count / 2] / theirs[theirs.count / 2]
        var target = targets[key].map { String(format: " (target ≤ %.2f×: %@)", $0, ratio <= $0 ? "met" : "NOT met") } ?? ""
        // Where a target is set, also each drive against the one right before it (same minutes
        // of the shared machine): the medians of the two sides may come from different drives.
        if targets[key] != nil, zip(self.ours, self.theirs).allSatisfy({ $0.0[key] != nil && $0.1[key] != nil }) {
            let pairs = zip(self.ours, self.theirs).compactMap { pair in pair.0[key].flatMap { a in pair.1[key].map { a / $0 } } }
            target += "; drive by drive " + pairs.map { String(format: "%.2f×", $0) }.joined(separator: ", ")
                + String(format: ", median %.2f×", pairs.sorted()[pairs.count / 2])
        }
        benchLine("\(area) \(name), median of \(ours.count) (spread): \(names.ours) \(text(ours)) vs \(names.theirs) \(text(theirs)): "
                  + String(format: "%.2f×", ratio) + target)
    }
}

/// Waits (bounded) until a script has written `path`.
private func waitForFile(_ path: String, seconds: Int) async throws {
    for _ in 0..<(seconds * 10) {
        if FileManager.default.fileExists(atPath: path) { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw BenchFailure("\(path) was not written within \(seconds) s")
}
