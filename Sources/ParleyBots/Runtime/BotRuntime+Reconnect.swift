import Foundation
import ParleyCore

extension BotRuntime {
    /// The server dropped the connection: reconnect at once, then with backoff on the clock
    /// (1 s doubling to 60 s). Catch-up then delivers what was missed. Counted as work, so
    /// the host is not idle while a reconnect is under way.
    func connectionLost() {
        guard !stopping, !reconnecting else { return }
        reconnecting = true
        log(.warn, "connection lost: reconnecting")
        tracker.begin()
        Task { await self.reconnect(attempt: 0) }
    }

    private func reconnect(attempt: Int) async {
        defer { tracker.end() }
        guard !stopping else { return }
        do {
            try await client.connect()
            reconnecting = false
            log(.info, "reconnected", ["attempts": String(attempt + 1)])
        } catch {
            let delay = Double(min(60, 1 << min(attempt, 6)))
            log(.warn, "reconnect failed", ["error": "\(error)", "retry_in": "\(Int(delay))s"])
            let tracker = self.tracker
            scheduler.schedule(at: clock.now().addingTimeInterval(delay)) { [weak self] in
                guard let self else { return }
                tracker.begin()
                Task { await self.reconnect(attempt: attempt + 1) }
            }
        }
    }
}
