/// The ids of the last `limit` messages recorded in each channel, with their seqs: what
/// drops a repeated message when a client keeps no history (`HistoryPolicy.ids`), as the
/// history's recent window does otherwise. A ring per channel: recording costs one channel
/// look-up and no string hashing; only a message at or below the channel's last seq (a
/// repeat or a late arrival) is looked for.
struct RecentMessageIDs: Sendable {
    private struct Entry: Sendable {
        var seq: Int64
        var id: String
    }

    /// Entries kept per channel.
    let limit: Int
    private var rings: [Channel: BoundedRing<Entry>] = [:]

    init(limit: Int) { self.limit = max(1, limit) }

    /// Notes the message `id` at `seq` in `channel`, forgetting the channel's oldest beyond `limit`.
    mutating func insert(id: String, seq: Int64, in channel: Channel) {
        // In place: one hash look-up, and the ring is not copied.
        rings[channel, default: BoundedRing()].append(Entry(seq: seq, id: id), capacity: limit)
    }

    /// Forgets the ids of `channels` (conversations the client no longer keeps).
    mutating func forget(_ channels: [Channel]) {
        for channel in channels { rings.removeValue(forKey: channel) }
    }

    /// True if the message `id` at `seq` is among the last recorded in `channel`.
    func contains(id: String, seq: Int64, in channel: Channel) -> Bool {
        rings[channel]?.contains { $0.seq == seq && $0.id == id } ?? false
    }
}
