import ParleyCore

/// One conversation inside the hub.
struct ChannelState: Sendable {
    let key: ChannelKey
    /// Display name of a group.
    var name: String?
    /// The last sequence number handed out (messages may still be waiting for their commit).
    var seq: Int64 = 0
    /// The last sequence number whose message is durable and delivered.
    var committedSeq: Int64 = 0
    /// Members and their delivery cursor: the last seq they were given (or could not see).
    /// One dictionary holds both, so an idle conversation costs one small allocation.
    var members: [String: Int64]
    /// The messages, oldest first — only when the hub stores in memory.
    var messages: [HubMessage] = []

    init(key: ChannelKey, name: String? = nil, members: [String]) {
        self.key = key
        self.name = name
        self.members = Dictionary(members.map { ($0, 0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The index in `messages` of the first message with a seq greater than `seq`.
    func firstIndex(after seq: Int64) -> Int {
        var low = 0, high = messages.count
        while low < high {
            let middle = (low + high) / 2
            if messages[middle].seq <= seq { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index of the message with `seq`, if stored here.
    func index(of seq: Int64) -> Int? {
        let index = firstIndex(after: seq - 1)
        return index < messages.count && messages[index].seq == seq ? index : nil
    }
}
