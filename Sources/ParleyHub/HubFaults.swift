import ParleyCore

/// Faults the hub injects into sends, so reliability paths are tested against the real thing.
struct HubFaults: Sendable {
    /// A number of upcoming sends that fail, optionally only those of one user.
    struct FailNext: Sendable {
        var remaining: Int
        var error: ParleyError
        var user: String?
    }

    var failNext: [FailNext] = []
    /// Sends to these targets (as the sender names them) always fail.
    var failingChannels: [Channel: ParleyError] = [:]
    /// Sends whose message is stored and delivered but whose receipt is lost on the way back.
    var lostAcks: [FailNext] = []
    /// Every send waits this long (on the hub clock) before the hub handles it.
    var delay: Duration?

    var isEmpty: Bool { failNext.isEmpty && failingChannels.isEmpty && lostAcks.isEmpty && delay == nil }

    /// The error the next send of `user` to `channel` fails with, consuming one "fail next".
    mutating func failure(user: String, channel: Channel) -> ParleyError? {
        if let index = failNext.firstIndex(where: { $0.user == nil || $0.user == user }) {
            let error = failNext[index].error
            failNext[index].remaining -= 1
            if failNext[index].remaining <= 0 { failNext.remove(at: index) }
            return error
        }
        return failingChannels[channel]
    }

    /// True when this (successful) send's receipt is to be lost, consuming one.
    mutating func losesAck(user: String) -> Bool {
        guard let index = lostAcks.firstIndex(where: { $0.user == nil || $0.user == user }) else { return false }
        lostAcks[index].remaining -= 1
        if lostAcks[index].remaining <= 0 { lostAcks.remove(at: index) }
        return true
    }
}
