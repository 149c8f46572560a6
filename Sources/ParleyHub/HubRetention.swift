/// What an in-memory hub keeps as messages accumulate: the newest messages overall and the
/// newest idempotency receipts, each in arrival order (oldest forgotten first), so a long
/// run holds bounded memory. Evictions happen in bulk, an eighth over the limit, so each
/// message pays them once.
struct HubRetention: Sendable {
    /// The channel of each retained message, oldest first (from `head` on).
    private var messageChannels: [Int32] = []
    private var messageHead = 0
    /// Receipt keys, oldest first (from `receiptHead` on).
    private var receiptKeys: [HubState.ReceiptKey] = []
    private var receiptHead = 0

    /// Records a message appended to `channel`'s in-memory list; returns how many of the
    /// oldest messages each channel must drop now (usually none).
    mutating func noteMessage(in channel: Int, limit: Int) -> [Int: Int] {
        messageChannels.append(Int32(channel))
        let retained = messageChannels.count - messageHead
        guard retained > limit + max(1, limit / 8) else { return [:] }
        var drops: [Int: Int] = [:]
        while messageChannels.count - messageHead > limit {
            drops[Int(messageChannels[messageHead]), default: 0] += 1
            messageHead += 1
        }
        Self.compact(&messageChannels, head: &messageHead)
        return drops
    }

    /// Records a new receipt key; returns the keys to forget now (usually none). A key
    /// forgotten earlier (a refused send) only makes an eviction a no-op.
    mutating func noteReceipt(_ key: HubState.ReceiptKey, window: Int) -> ArraySlice<HubState.ReceiptKey> {
        receiptKeys.append(key)
        guard receiptKeys.count - receiptHead > window + max(1, window / 8) else { return [] }
        let end = receiptKeys.count - window
        let evicted = receiptKeys[receiptHead..<end]
        receiptHead = end
        defer { Self.compact(&receiptKeys, head: &receiptHead) }
        return evicted
    }

    /// Drops the consumed front of a FIFO once it is most of the array.
    private static func compact<Element>(_ list: inout [Element], head: inout Int) {
        guard head > 1024, head * 2 > list.count else { return }
        list.removeFirst(head)
        head = 0
    }
}
