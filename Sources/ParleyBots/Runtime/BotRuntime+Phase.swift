import Foundation
import ParleyCore

/// Where a bot's runtime is in its life: one value instead of flags that could contradict
/// each other (a start "holding" lanes while "stopping").
enum BotPhase: Equatable {
    /// Made and not started, or its start failed: work is taken and handled at once.
    case created
    /// Connecting: lanes fill but are not drained yet, so the messages the previous run left
    /// unhandled go first; `held` are the lanes to drain once they are queued.
    case starting(held: [Channel])
    /// Started: each lane is drained as work arrives.
    case running
    /// Stopping or stopped: no new work is taken; a received message left in a lane waits in
    /// the inbox for the next start. Final.
    case stopping
}

/// The client's connection as the runtime follows it, for its log and its idle check.
enum BotLink: Equatable {
    /// Connected, or not yet connected (a failed first connect is the host's to report).
    case steady(ConnectionState)
    /// Lost while connected; the client reconnects by itself. `failures`: attempts failed so
    /// far. Until the first fails, the attempt counts as work, so the host is not idle
    /// before the catch-up delivered what was missed; during a backoff it may be.
    case reconnecting(failures: Int)

    /// Whether the state counts as work under way (see `reconnecting`).
    var isCountedAsWork: Bool { self == .reconnecting(failures: 0) }
}

extension BotRuntime {
    var isStopping: Bool { phase == .stopping }

    /// Queues the drain of `channel`, or holds it while the runtime starts.
    func startDrain(_ channel: Channel) {
        if case .starting(var held) = phase {
            held.append(channel)
            phase = .starting(held: held)
        } else {
            drainSoon([channel])
        }
    }

    /// Ends the hold of a start (done or failed): the held lanes are drained, unless `drop`.
    func endHold(dropping drop: Bool = false) {
        guard case .starting(let held) = phase else { return }
        phase = drop ? .created : .running
        if !drop { drainSoon(held) }
    }

    /// Moves to `.stopping` (for good): lanes a start still holds are drained now, their
    /// received messages left in the inbox, their other items run, so the runtime quiets.
    func enterStopping() {
        if case .starting(let held) = phase { drainSoon(held) }
        phase = .stopping
    }

    /// A drain task for each of `channels`: a handler that waits must hold up neither the
    /// caller nor other conversations.
    private func drainSoon(_ channels: [Channel]) {
        for channel in channels { Task { await self.drain(channel) } }
    }
}
