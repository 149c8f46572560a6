/// The `bots` workload at a small size, for `scripts/test`: every answer of the real bot is
/// checked, and the same workload against a bot that answers wrongly must fail, so a checker
/// that let wrong answers through would fail here first.
func benchBotsCheck() async throws {
    let bench = try await BotBench(users: 4)
    _ = try await bench.roundTrips(users: 4, each: 25)
    _ = try await bench.roundTrips(users: 1, each: 50)
    _ = try await bench.unrelated(count: 400)
    await bench.shutdown()

    let wrongEcho = try await mustFail(BotBench(users: 2, echo: "{{args.text}}.")) { _ = try await $0.roundTrips(users: 2, each: 5) }
    let answersAll = try await mustFail(BotBench(users: 2, fallback: "?")) { _ = try await $0.unrelated(count: 10) }
    print("bots-check: ok: 150 answers checked, none to unrelated messages; wrong answers fail the run (\(wrongEcho); \(answersAll))")
}

/// Runs `workload` on `bench` and returns the failure it must report.
private func mustFail(_ bench: BotBench, _ workload: (BotBench) async throws -> Void) async throws -> BenchFailure {
    var caught: BenchFailure?
    do {
        try await workload(bench)
    } catch let failure as BenchFailure where failure.description.hasPrefix("bots: ") {
        caught = failure
    }
    await bench.shutdown()
    guard let caught else { throw BenchFailure("bots-check: a bot answering wrongly went unnoticed") }
    return caught
}
