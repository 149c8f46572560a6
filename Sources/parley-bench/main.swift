import Foundation

// One benchmark executable, one subcommand per area, one line per figure.
// `swift run -c release parley-bench <area>`; no area runs them all in turn.
let areas: KeyValuePairs<String, () async throws -> Void> = [
    // Raw libyaml events and full decoding + validation of bot files, in one run: the
    // decoder's figure is a share of the raw parser's.
    "yaml": { try await benchYAML(); try await benchYAMLDecode() },
    "hub": benchHub,
    "core": benchCore,
    "broadcast": benchBroadcast,
    "bots": benchBots,
    "flowtest": benchFlowTest,
    // Resident memory per 100,000 idle conversations and per 100,000 profiles.
    "memory": benchMemory,
    // The operations listener with 100 bots: /healthz and /metrics requests/s, and a Python
    // server answering the same /healthz as the yardstick.
    "http": benchHTTP,
    // The visitors' chat: 100 visitors, round trips/s and latency.
    "web": benchWeb,
    // 10,000 hand-offs across 3 queues and 20 agents on round robin, with SQLite.
    "handoff": benchHandoff,
    // Needs a live Synapse (`eval "$(scripts/synapse start)"`); says "skipped" without one.
    "matrix": benchMatrix,
    // End-to-end encryption: the support bot's drives in plain and encrypted rooms side by
    // side, and a broadcast into 1,000 encrypted direct rooms (Synapse, as `matrix`).
    "matrix-e2ee": benchMatrixE2EE,
    // One process on PostgreSQL (storage.url) against SQLite: conversations/s and broadcast
    // recipients/s (needs PARLEY_TEST_POSTGRES_URL; `eval "$(scripts/postgres start)"`).
    "cluster": benchCluster,
]
// Not part of a full run: one untimed pass of one YAML stage, for callgrind; parts of an area.
let tools: KeyValuePairs<String, () async throws -> Void> = [
    "yaml-decode": benchYAMLDecode,
    "yaml-profile": { try benchYAMLProfile(Array(CommandLine.arguments.dropFirst(2))) },
    // The `bots` workload, small, with every answer checked (run by scripts/test).
    "bots-check": benchBotsCheck,
    // The Matrix broadcast and the bare client's ceiling alone.
    "matrix-broadcast": benchMatrixBroadcastOnly,
    // The support bot and the yardstick alone.
    "matrix-bot": benchMatrixBotOnly,
    // The two parts of `matrix-e2ee` alone.
    "matrix-e2ee-bot": benchMatrixE2EEBotOnly,
    "matrix-e2ee-broadcast": benchMatrixE2EEBroadcastOnly,
]

let requested = CommandLine.arguments.dropFirst().first
let known = Array(areas) + Array(tools)
if let requested, !known.contains(where: { $0.key == requested }) {
    let help = requested == "--help" || requested == "-h"
    print("usage: parley-bench [\(known.map(\.key).joined(separator: "|"))]")
    exit(help ? 0 : 64)
}
for (name, run) in known where requested == name || (requested == nil && areas.contains { $0.key == name }) {
    do {
        try await run()
    } catch {
        // A wrong answer or a failed set-up: the figures before it stand, none after it.
        FileHandle.standardError.write(Data("parley-bench \(name): error: \(error)\n".utf8))
        exit(1)
    }
}
