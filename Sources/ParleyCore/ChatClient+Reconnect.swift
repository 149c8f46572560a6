import Foundation

// MARK: - Reconnecting after a dropped connection

extension ChatClient {
    /// Starts the reconnect loop (once), if the configuration asks for one.
    func startReconnecting() {
        guard reconnecting == nil, let policy = configuration.reconnect else { return }
        setState(.reconnecting)
        reconnecting = Task { await self.reconnect(policy) }
    }

    /// Attempts at once, then after each failure waits the policy's backoff on the client's
    /// clock. Every failure is reported (an `.error` event whose context has `attempt` and
    /// `retry_in`); catch-up on the new stream delivers what was missed meanwhile. Ends when
    /// connected, when `disconnect()` cancels it, or after `maxAttempts` failures in a row.
    private func reconnect(_ policy: RetryPolicy) async {
        defer { reconnecting = nil }
        for attempt in 1...policy.maxAttempts {
            guard keepsConnection, !Task.isCancelled else { return }
            do {
                try await open()
                // `disconnect()` ran while the attempt was under way: undo what it opened.
                if !keepsConnection { await disconnect() }
                return
            } catch {
                let failure = ParleyError.wrapping(error, as: .networkUnavailable)
                guard attempt < policy.maxAttempts else {
                    keepsConnection = false
                    setState(.disconnected)
                    report(ParleyError(failure.code, "reconnect gave up after \(attempt) attempts: \(failure.message)",
                                       context: ["attempt": String(attempt)]))
                    return
                }
                let delay = policy.delay(afterAttempt: attempt, retryAfter: failure.retryAfter, random: configuration.outbox.random())
                report(ParleyError(failure.code, "reconnect attempt \(attempt) failed: \(failure.message)",
                                   context: ["attempt": String(attempt), "retry_in": String(format: "%.1fs", delay.timeInterval)]))
                do {
                    try await configuration.clock.sleep(until: configuration.clock.now().addingTimeInterval(delay.timeInterval))
                } catch {
                    return
                }
            }
        }
    }
}
