import Foundation
import ParleyCore

/// The bot's client reconnects by itself after a dropped connection (`ChatClient`'s
/// `configuration.reconnect`); the runtime logs it and counts an attempt under way as work,
/// so the host is not idle before catch-up has delivered what was missed.
extension BotRuntime {
    /// Follows the client's connection state.
    func connectionChanged(_ state: ConnectionState) {
        let counted = link.isCountedAsWork
        switch (link, state) {
        case (.steady(.connected), .disconnected) where !isStopping:
            // A drop (a failed first connect is the host's to report, not a reconnect).
            link = .reconnecting(failures: 0)
            log(.warn, "connection lost: reconnecting")
        case (.reconnecting(let failures), .connected):
            link = .steady(.connected)
            log(.info, "reconnected", ["attempts": String(failures + 1)])
        case (.reconnecting, .disconnected) where isStopping:
            link = .steady(.disconnected)
        case (.reconnecting, _):
            break
        case (.steady, _):
            link = .steady(state)
        }
        countAsWork(from: counted)
    }

    /// A failed attempt (the client's error carries a `reconnectFailure`): the client waits its
    /// backoff on the clock, during which the host may be idle. True if `error` was one.
    func reconnectFailed(_ error: ParleyError) -> Bool {
        guard case .reconnecting(let failures) = link, let failure = error.reconnectFailure else { return false }
        let counted = link.isCountedAsWork
        link = .reconnecting(failures: failures + 1)
        log(.warn, "reconnect failed", ["error": error.description, "retry_in": failure.retryInText ?? "-"])
        countAsWork(from: counted)
        return true
    }

    /// Tells `tracker` when the link starts or stops counting as work.
    private func countAsWork(from counted: Bool) {
        guard link.isCountedAsWork != counted else { return }
        if counted { tracker.end() } else { tracker.begin() }
    }
}
