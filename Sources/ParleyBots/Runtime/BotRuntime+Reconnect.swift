import Foundation
import ParleyCore

/// The bot's client reconnects by itself after a dropped connection (`ChatClient`'s
/// `configuration.reconnect`); the runtime logs it and counts an attempt under way as work,
/// so the host is not idle before catch-up has delivered what was missed.
extension BotRuntime {
    /// Follows the client's connection state.
    func connectionChanged(_ state: ConnectionState) {
        let previous = connection
        connection = state
        switch state {
        case .disconnected where !stopping && !reconnecting && previous == .connected:
            // A drop (a failed first connect is the host's to report, not a reconnect).
            reconnecting = true
            reconnectFailures = 0
            log(.warn, "connection lost: reconnecting")
            countReconnect(true)
        case .connected where reconnecting:
            reconnecting = false
            log(.info, "reconnected", ["attempts": String(reconnectFailures + 1)])
            countReconnect(false)
        case .disconnected where stopping:
            reconnecting = false
            countReconnect(false)
        default:
            break
        }
    }

    /// A failed attempt (the client's error carries a `reconnectFailure`): the client waits its
    /// backoff on the clock, during which the host may be idle. True if `error` was one.
    func reconnectFailed(_ error: ParleyError) -> Bool {
        guard reconnecting, let failure = error.reconnectFailure else { return false }
        reconnectFailures += 1
        log(.warn, "reconnect failed", ["error": error.description, "retry_in": failure.retryInText ?? "-"])
        countReconnect(false)
        return true
    }

    private func countReconnect(_ busy: Bool) {
        guard busy != reconnectCounted else { return }
        reconnectCounted = busy
        if busy { tracker.begin() } else { tracker.end() }
    }
}
