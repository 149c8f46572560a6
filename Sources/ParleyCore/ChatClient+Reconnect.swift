import Foundation

// MARK: - Reconnecting after a dropped connection

extension ChatClient {
    /// Starts the reconnect loop (the state machine is `reconnecting` already).
    func startReconnecting() {
        guard let policy = configuration.reconnect else { return }
        emit(.connectionState(.reconnecting))
        reconnecting = Task { await self.reconnect(policy) }
    }

    /// Attempts at once, then after each failure waits the policy's backoff on the client's
    /// clock. Every failure is reported (an `.error` event whose `reconnectFailure` says
    /// which attempt failed and how long until the next); catch-up on the new stream delivers
    /// what was missed meanwhile. Ends when connected, when `disconnect()` cancels it, or
    /// after `maxAttempts` failures in a row.
    private func reconnect(_ policy: RetryPolicy) async {
        defer { reconnecting = nil }
        // Bounded: every failed attempt counts, and the state machine gives up at `maxAttempts`.
        while connection.isReconnecting, !Task.isCancelled {
            do {
                try await open()
                return
            } catch {
                let failure = ParleyError.wrapping(error, as: .networkUnavailable)
                switch transition({ $0.attemptFailed(maxAttempts: policy.maxAttempts) }) {
                case .stop:
                    return
                case .giveUp(let attempt):
                    report(Self.reconnectError(failure, "reconnect gave up after \(attempt) attempts",
                                               ReconnectFailure(attempt: attempt, retryIn: nil)))
                    return
                case .retry(let attempt):
                    let delay = policy.delay(afterAttempt: attempt, retryAfter: failure.retryAfter, random: configuration.outbox.random())
                    report(Self.reconnectError(failure, "reconnect attempt \(attempt) failed",
                                               ReconnectFailure(attempt: attempt, retryIn: delay)))
                    do {
                        try await configuration.clock.sleep(until: configuration.clock.now().addingTimeInterval(delay.timeInterval))
                    } catch {
                        return
                    }
                }
            }
        }
    }

    /// The error reporting a failed attempt: `failure`'s code, `summary` and its message, the
    /// attempt typed (what code decides on) and in the context (what people read).
    static func reconnectError(_ failure: ParleyError, _ summary: String, _ attempt: ReconnectFailure) -> ParleyError {
        ParleyError(failure.code, "\(summary): \(failure.message)", context: attempt.context, reconnectFailure: attempt)
    }
}
