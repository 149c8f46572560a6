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
    /// A number of upcoming connects that are refused.
    var refusedConnects: [FailNext] = []

    var isEmpty: Bool { failNext.isEmpty && failingChannels.isEmpty && lostAcks.isEmpty && delay == nil && refusedConnects.isEmpty }

    /// The error the next send of `user` to `channel` fails with, consuming one "fail next".
    mutating func failure(user: String, channel: Channel) -> ParleyError? {
        Self.consume(&failNext, user: user) ?? failingChannels[channel]
    }

    /// True when this (successful) send's receipt is to be lost, consuming one.
    mutating func losesAck(user: String) -> Bool {
        Self.consume(&lostAcks, user: user) != nil
    }

    /// The error the next connect of `user` is refused with, consuming one.
    mutating func connectRefusal(user: String) -> ParleyError? {
        Self.consume(&refusedConnects, user: user)
    }

    /// Takes one from the first entry for `user` (or anyone) and returns its error.
    private static func consume(_ entries: inout [FailNext], user: String) -> ParleyError? {
        guard let index = entries.firstIndex(where: { $0.user == nil || $0.user == user }) else { return nil }
        let error = entries[index].error
        entries[index].remaining -= 1
        if entries[index].remaining <= 0 { entries.remove(at: index) }
        return error
    }
}
