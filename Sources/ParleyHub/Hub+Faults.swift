import ParleyCore
import Synchronization

/// Fault injection, so the SDK's reliability paths run against the real hub.
extension Hub {
    /// The next `count` sends (of `user`, or of anyone) fail with `error` before reaching
    /// the hub's logic — e.g. `ParleyError(.rateLimited, …, retryAfter: .seconds(2))`.
    public func failNextSends(_ count: Int, with error: ParleyError, from user: String? = nil) {
        guard count > 0 else { return }
        state.withLock { $0.faults.failNext.append(HubFaults.FailNext(remaining: count, error: error, user: user)) }
    }

    /// The next `count` connects (of `user`, or of anyone) fail with `error`, as a server
    /// that is down or refuses the login would.
    public func refuseNextConnects(_ count: Int, of user: String? = nil,
                                   with error: ParleyError = ParleyError(.networkUnavailable, "connection refused")) {
        guard count > 0 else { return }
        state.withLock { $0.faults.refusedConnects.append(HubFaults.FailNext(remaining: count, error: error, user: user)) }
    }

    /// Every send to `channel` (as the sender names it) fails with `error` until cleared
    /// (nil) — e.g. `notFound` or `permissionDenied` for a permanent failure.
    public func failSends(to channel: Channel, with error: ParleyError?) {
        state.withLock { $0.faults.failingChannels[channel] = error }
    }

    /// The next `count` sends (of `user`, or of anyone) are stored and delivered, but their
    /// sender gets `networkUnavailable` instead of the receipt: the lost-ack case that
    /// idempotent resends exist for.
    public func loseNextAcks(_ count: Int, from user: String? = nil) {
        guard count > 0 else { return }
        state.withLock { $0.faults.lostAcks.append(HubFaults.FailNext(remaining: count, error: ParleyError(.networkUnavailable, "ack lost"), user: user)) }
    }

    /// Every send waits `delay` on the hub clock before it is handled (nil: no delay).
    public func delaySends(by delay: Duration?) {
        state.withLock { $0.faults.delay = delay }
        delaying.store(delay != nil, ordering: .releasing)
    }

    /// Removes every injected fault (dropped connections stay dropped until they reconnect).
    public func clearFaults() {
        state.withLock { $0.faults = HubFaults() }
        delaying.store(false, ordering: .releasing)
    }

    /// Drops every connection of `user` as a network failure would: its streams emit
    /// `.connection(.disconnected)` and finish, held-back sends fail with
    /// `networkUnavailable`, and its transports fail sends until they `connect()` again.
    public func dropConnection(of user: String) {
        let transports = state.withLock { state in state.transports.filter { $0.value == user }.map(\.key) }
        for send in endStreams(of: user, transports: transports, dropped: true) {
            send.continuation.resume(throwing: ParleyError(.networkUnavailable, "connection dropped", context: ["user": user]))
        }
    }
}
