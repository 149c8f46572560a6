import Foundation

/// The floor under the bots bench's round trips on this machine: two bare tasks per user that
/// hand a number back and forth through `AsyncStream`s — the two task wake-ups every round trip
/// needs (user → bot, bot → user), with no hub, no SDK and no engine in between. Printed in the
/// same run as the real figures, so the ratio between them survives a noisy host.
enum HandoffFloor {
    /// Round trips per second for `pairs` user/bot task pairs doing `rounds` round trips each.
    static func roundTrips(pairs: Int, rounds: Int) async -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<pairs {
                let (botInbox, toBot) = AsyncStream<Int>.makeStream()
                let (userInbox, toUser) = AsyncStream<Int>.makeStream()
                group.addTask {
                    // The "bot": answers every number it gets; ends when the user finishes.
                    for await value in botInbox { toUser.yield(value) }
                    toUser.finish()
                }
                group.addTask {
                    var answers = userInbox.makeAsyncIterator()
                    for round in 0..<rounds {
                        toBot.yield(round)
                        // Bounded: the bot answers every number until its inbox finishes.
                        guard await answers.next() != nil else { break }
                    }
                    toBot.finish()
                }
            }
        }
        let elapsed = clock.now - start
        return Double(pairs * rounds) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
