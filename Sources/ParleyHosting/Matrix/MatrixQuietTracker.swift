import Synchronization

/// When the conversation last moved: the user's last message, the bot's last output.
final class MatrixQuietTracker: Sendable {
    private struct Times {
        var user: ContinuousClock.Instant?
        var bot: ContinuousClock.Instant?
    }

    private let times = Mutex(Times())

    /// The user sent a message.
    func userSent() { times.withLock { $0.user = .now } }
    /// The bot sent something.
    func botSent() { times.withLock { $0.bot = .now } }

    /// Returns once the bot seems done with the user's last message: it answered and then
    /// stayed silent for `quiet`, or it has not answered within `patience` (a bot that says
    /// nothing). At once before the user said anything. At most 400 checks, so never forever.
    func waitForQuiet(_ quiet: Duration, patience: Duration) async throws {
        for _ in 0..<400 {
            let (user, bot) = times.withLock { ($0.user, $0.bot) }
            guard let user else { return }
            let now = ContinuousClock.now
            let wait: Duration
            if let bot, bot > user {
                wait = quiet - (now - bot)
            } else {
                wait = patience - (now - user)
            }
            if wait <= .zero { return }
            try await Task.sleep(for: min(wait, quiet))
        }
    }
}
