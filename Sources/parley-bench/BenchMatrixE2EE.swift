import Foundation
import ParleyHosting
import ParleyMatrix

/// `parley-bench matrix-e2ee`: what end-to-end encryption costs on a live Synapse (`eval
/// "$(scripts/synapse start)"` first; run from the repository root). Two parts:
///
/// 1. The support bot of `parley-bench matrix`, hosted as `parley run` hosts it with
///    `transport.encryption: {mode: allow}` (its crypto store in the bench's temporary folder),
///    driven by `scripts/matrix-bench.py bot` in plain rooms and by the same drive with
///    `--encrypted` (a matrix-nio client with E2EE, every room encrypted) in encrypted ones,
///    alternating, three drives each (`PARLEY_BENCH_MATRIX_RUNS`). Every answer is checked:
///    answered once, with its expected text, decrypted by nio. One line per figure, encrypted
///    beside plain, with the ratio against the targets: the round trip at most 10% longer,
///    the bot's CPU per answer at most twice the plain room's.
/// 2. A broadcast into 1,000 encrypted direct rooms (`BenchMatrixE2EEBroadcast.swift`).
func benchMatrixE2EE() async throws {
    try await benchMatrixE2EE(bot: true, broadcast: true)
}

/// `parley-bench matrix-e2ee-bot`: only the drives.
func benchMatrixE2EEBotOnly() async throws {
    try await benchMatrixE2EE(bot: true, broadcast: false)
}

/// `parley-bench matrix-e2ee-broadcast`: only the broadcast.
func benchMatrixE2EEBroadcastOnly() async throws {
    try await benchMatrixE2EE(bot: false, broadcast: true)
}

private func benchMatrixE2EE(bot: Bool, broadcast: Bool) async throws {
    guard let bench = try await MatrixBench.start("matrix-e2ee") else { return }
    if bot { try await benchMatrixE2EEBot(bench) }
    if broadcast { try await benchMatrixE2EEBroadcast(bench) }
}

/// Pickle keys of the bench's crypto stores (throw-away stores in a temporary folder).
let benchPickleKey = "parley-bench-pickle-key-0123456789"

private func benchMatrixE2EEBot(_ bench: MatrixBench) async throws {
    let homeserver = bench.registrar.homeserver
    let account = try await bench.registrar.register("bench-e2ee-support-\(bench.tag)", password: "pw-\(bench.tag)")
    try await bench.registrar.overrideRateLimit(of: account.userID, adminToken: bench.adminToken)
    guard let host = try await startSupportBot(account: account, homeserver: homeserver, folder: bench.folder,
                                               environment: bench.environment, pickleKey: benchPickleKey)
    else { return }
    let driver = BotDriver(python: bench.python, homeserver: homeserver.absoluteString, secret: bench.secret,
                           adminToken: bench.adminToken, folder: bench.folder)
    var plain: [[String: Double]] = [], encrypted: [[String: Double]] = []
    let runs = max(1, Int(bench.environment["PARLEY_BENCH_MATRIX_RUNS"] ?? "") ?? 3)
    for run in 1...runs {
        plain.append(try await driver.drive(account.userID, label: "matrix-e2ee plain run \(run)", cpu: .current))
        encrypted.append(try await driver.drive(account.userID, label: "matrix-e2ee encrypted run \(run)", cpu: .current,
                                                encrypted: true))
    }
    await host.shutdown()
    // "Encryption costs under 10% of the round-trip latency; the bot's CPU per reply at most
    // twice its plain-room cost" (issue #20).
    MatrixBotSummary(area: "matrix-e2ee", names: ("encrypted", "plain"), ours: encrypted, theirs: plain,
                     targets: ["p50": 1.10, "cpu_ms": 2.0], showsDriver: true).print()
}
