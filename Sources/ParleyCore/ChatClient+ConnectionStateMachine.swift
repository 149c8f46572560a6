extension ChatClient {
    /// The client's connection life cycle: connecting, receiving, reconnecting after a drop,
    /// disconnecting, and whether the outbox was started. Every decision about it, without
    /// I/O: the actor feeds each event in, performs what comes back (opening the transport,
    /// the inbound and reconnect tasks, publishing the state) and asks again after every
    /// `await`.
    struct ConnectionStateMachine: Equatable {
        enum State: Equatable {
            /// Not connected, and not meant to be: before `connect()`, after `disconnect()`, a
            /// failed `connect()` or a reconnect loop that gave up.
            case disconnected
            /// `connect()` opens the transport.
            case connecting
            /// The stream is open; `shown` is the state published (the transport may report
            /// another one, such as its own reconnecting).
            case connected(shown: ConnectionState)
            /// The stream ended and the reconnect loop runs; `failures` so far.
            case reconnecting(failures: Int)
            /// The stream ended without a reconnect policy: down until the owner connects.
            case dropped
        }

        enum OpenedAction: Equatable {
            /// Now connected: start receiving.
            case receive
            /// `disconnect()` ran while the transport opened: close what was opened.
            case close
        }

        enum StreamEndedAction: Equatable {
            /// A drop: start the reconnect loop (now `reconnecting`).
            case reconnect
            /// A drop without a reconnect policy: down until the owner connects (now `dropped`).
            case stayDown
            /// Not a drop: `disconnect()` asked for it, or the stream was an earlier one.
            case none
        }

        enum AttemptFailedAction: Equatable {
            /// Wait the backoff after this failed attempt, then try again.
            case retry(attempt: Int)
            /// The last attempt failed: now disconnected.
            case giveUp(attempt: Int)
            /// `disconnect()` ended the loop meanwhile: nothing to report.
            case stop
        }

        private(set) var state = State.disconnected
        /// True once the outbox runs, until the client closes.
        private(set) var outboxStarted = false

        /// What `connectionState` answers and `.connectionState` events tell.
        var published: ConnectionState {
            switch state {
            case .disconnected, .dropped: return .disconnected
            case .connecting: return .connecting
            case .connected(let shown): return shown
            case .reconnecting: return .reconnecting
            }
        }

        /// True while the reconnect loop is to go on.
        var isReconnecting: Bool {
            if case .reconnecting = state { return true }
            return false
        }

        /// `connect()`: true when the transport is to be opened (now `connecting`); false
        /// unless disconnected as far as anyone can tell.
        mutating func connect() -> Bool {
            guard published == .disconnected else { return false }
            state = .connecting
            return true
        }

        /// The transport's stream is open.
        mutating func opened() -> OpenedAction {
            switch state {
            case .connecting, .reconnecting, .connected:
                state = .connected(shown: .connected)
                return .receive
            case .disconnected, .dropped:
                return .close
            }
        }

        /// `connect()`'s attempt failed: disconnected again (unless something else moved on).
        mutating func connectFailed() {
            if state == .connecting { state = .disconnected }
        }

        /// The transport reported its connection state on the stream. Taken only while
        /// connected: after a disconnect the stream is no longer this client's.
        mutating func transportReported(_ reported: ConnectionState) {
            guard case .connected = state else { return }
            state = .connected(shown: reported)
        }

        /// The transport ended the stream: a drop to reconnect from (with a policy) while
        /// connected; otherwise `disconnect()` asked for it, or a `connect()` under way
        /// replaces that stream.
        mutating func streamEnded(reconnects: Bool) -> StreamEndedAction {
            guard case .connected = state else { return .none }
            state = reconnects ? .reconnecting(failures: 0) : .dropped
            return reconnects ? .reconnect : .stayDown
        }

        /// A reconnect attempt failed; `maxAttempts` in a row end the loop.
        mutating func attemptFailed(maxAttempts: Int) -> AttemptFailedAction {
            guard case .reconnecting(let failures) = state else { return .stop }
            let attempt = failures + 1
            if attempt >= maxAttempts {
                state = .disconnected
                return .giveUp(attempt: attempt)
            }
            state = .reconnecting(failures: attempt)
            return .retry(attempt: attempt)
        }

        /// `disconnect()`: true when there is a connection to close (it was not published as
        /// disconnected); the reconnect loop ends either way.
        mutating func disconnect() -> Bool {
            let open = published != .disconnected
            state = .disconnected
            return open
        }

        mutating func outboxDidStart() { outboxStarted = true }

        /// `close()` stopped the outbox: the next connect starts it again.
        mutating func outboxDidStop() { outboxStarted = false }
    }
}
