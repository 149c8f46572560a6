/// The ids of the last `limit` messages recorded in each channel, with their seqs: what
/// drops a repeated message when a client keeps no history (`HistoryPolicy.ids`), as the
/// history's recent window does otherwise. A ring per channel: recording costs one channel
/// look-up and no string hashing; only a message at or below the channel's last seq (a
/// repeat or a late arrival) is looked for.
struct RecentMessageIDs: Sendable {
    private struct Ring: Sendable {
        var seqs: [Int64] = []
        var ids: [String] = []
        /// Where the next entry goes once the ring is full (the oldest entry).
        var next = 0
    }

    /// Entries kept per channel.
    let limit: Int
    private var rings: [Channel: Ring] = [:]

    init(limit: Int) { self.limit = max(1, limit) }

    /// Notes the message `id` at `seq` in `channel`, forgetting the channel's oldest beyond `limit`.
    mutating func insert(id: String, seq: Int64, in channel: Channel) {
        let limit = self.limit
        // In place: one hash look-up, and the ring's arrays are not copied.
        Self.insert(id: id, seq: seq, into: &rings[channel, default: Ring()], limit: limit)
    }

    private static func insert(id: String, seq: Int64, into ring: inout Ring, limit: Int) {
        guard ring.seqs.count >= limit else {
            ring.seqs.append(seq)
            ring.ids.append(id)
            return
        }
        ring.seqs[ring.next] = seq
        ring.ids[ring.next] = id
        ring.next = (ring.next + 1) % ring.seqs.count
    }

    /// True if the message `id` at `seq` is among the last recorded in `channel`.
    func contains(id: String, seq: Int64, in channel: Channel) -> Bool {
        guard let ring = rings[channel] else { return false }
        for index in ring.seqs.indices where ring.seqs[index] == seq && ring.ids[index] == id { return true }
        return false
    }
}
