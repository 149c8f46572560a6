import ParleyCore

/// What an in-memory hub keeps as messages accumulate: the newest messages overall and the
/// newest idempotency receipts, each in arrival order (oldest forgotten first), so a long
/// run holds bounded memory. Messages are evicted in bulk, an eighth over the limit, so each
/// message pays them once; receipt keys live in a ring of exactly the window's size.
struct HubRetention: Sendable {
    /// The channel of each retained message, oldest first (from `head` on).
    private var messageChannels: [Int32] = []
    private var messageHead = 0
    /// Receipt keys, exactly the window's worth once it is full (a list that grows past the
    /// window before dropping its front holds up to twice it: 40,000 keys of 32 bytes by default).
    private var receiptKeys = BoundedRing<HubState.ReceiptKey>()

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

    /// Records a new receipt key; returns the key to forget now, the oldest, once `window`
    /// keys are kept. A key forgotten earlier (a refused send) only makes that a no-op.
    mutating func noteReceipt(_ key: HubState.ReceiptKey, window: Int) -> HubState.ReceiptKey? {
        receiptKeys.append(key, capacity: window)
    }

    /// Drops the consumed front of a FIFO once it is most of the array.
    private static func compact(_ list: inout [Int32], head: inout Int) {
        guard head > 1024, head * 2 > list.count else { return }
        list.removeFirst(head)
        head = 0
    }
}
