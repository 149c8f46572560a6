import Foundation
import ParleyCore
import ParleyHosting
import ParleyTesting

/// Hot reload of the 100 bot files of `benchHTTP`'s host: each round rewrites every file (a
/// new command in each) and reloads, while a user keeps sending to ten of the bots. Checked:
/// every reload applies all 100 files, the new command answers in every bot after it, and
/// every message sent during the reloads is answered once, in order.
func benchReload(_ running: RunningHost, folder: String) async throws {
    guard let hub = running.hub else { throw BenchFailure("the reload bench needs the embedded hub") }
    let received = ReceivedTexts(of: "alice")
    let alice = try ChatClient(transport: hub.connect(user: "alice"))
    await alice.setEventHandler { received.take($0) }
    try await alice.connect()
    defer { Task { await alice.close() } }
    let rounds = 7
    var durations: [Double] = []
    var sent = 0
    var expected: [String] = []
    for round in 1...rounds {
        for index in 1...100 {
            try """
                name: Bot \(index)
                commands:
                  ping: { reply: pong }
                  order: { args: [number], reply: "Order {{args.number}}" }
                  round: { reply: "round \(round) of bot \(index)" }
                """.write(toFile: folder + String(format: "/bots/bot%03d.yaml", index), atomically: true, encoding: .utf8)
        }
        // Messages in flight while the files are swapped: ten bots, ten each, sent as the
        // reload runs.
        let traffic = Task {
            var texts: [String] = []
            for number in 0..<100 {
                let bot = String(format: "bot%03d", number % 10 + 1)
                _ = try await alice.send(TextContent("/order \(round)-\(number)"), to: .person(bot))
                texts.append("Order \(round)-\(number)")
            }
            return texts
        }
        let started = ContinuousClock.now
        let report = await running.reload()
        let elapsed = ContinuousClock.now - started
        guard report.result == .ok, report.changed.count == 100 else {
            throw BenchFailure("reload \(round): \(report.result.rawValue), \(report.changed.count) changed, errors \(report.errors)")
        }
        durations.append(elapsed.timeInterval * 1000)
        expected += try await traffic.value
        sent += 100
        // The new command, in every bot.
        for index in 1...100 {
            _ = try await alice.send(TextContent("/round"), to: .person(String(format: "bot%03d", index)))
            expected.append("round \(round) of bot \(index)")
            sent += 1
        }
        try await withTimeout("answers of round \(round)", seconds: 60) { [sent] in await received.waitFor(sent) }
    }
    // Answers to one bot come in the order sent; across bots they interleave: compare per bot.
    let got = received.texts(from: 0)
    guard got.count == expected.count, got.sorted() == expected.sorted(),
          inOrderPerBot(got) == inOrderPerBot(expected) else {
        throw BenchFailure("the answers during the reloads differ from those expected (\(got.count) of \(expected.count))")
    }
    let sorted = durations.sorted()
    benchLine(String(format: "http reload of 100 changed bot files while 10 bots answer: median %.1f ms, max %.1f ms over %d reloads "
                     + "(%d messages answered once, in order; each new command answered)",
                     sorted[sorted.count / 2], sorted.last ?? 0, rounds, sent))
}

/// The `/order` answers of each conversation in order (`Order R-N`: N mod 10 is the bot).
private func inOrderPerBot(_ texts: [String]) -> [Int: [String]] {
    var byBot: [Int: [String]] = [:]
    for text in texts where text.hasPrefix("Order ") {
        guard let number = text.split(separator: "-").last.flatMap({ Int($0) }) else { continue }
        byBot[number % 10, default: []].append(text)
    }
    return byBot
}
