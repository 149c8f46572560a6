import ParleyHTTPServer

/// Where an event stands in a visitor's conversation: the hub's sequence number of the last
/// message, and how many reactions came since (`7` is message 7, `7.2` the second reaction
/// after it). What the browser sends back as `Last-Event-ID` to resume exactly after it.
struct VisitorEventPosition: Sendable, Comparable, Hashable, CustomStringConvertible {
    var seq: Int64
    var reaction: Int

    /// Reads `7` or `7.2`; nil for anything else (the stream then starts from its beginning).
    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let seq = Int64(parts[0]), seq >= 0 else { return nil }
        var reaction = 0
        if parts.count == 2 {
            guard let number = Int(parts[1]), number > 0 else { return nil }
            reaction = number
        }
        self.init(seq: seq, reaction: reaction)
    }

    init(seq: Int64, reaction: Int) {
        self.seq = seq
        self.reaction = reaction
    }

    var description: String { reaction == 0 ? String(seq) : "\(seq).\(reaction)" }

    static func < (a: Self, b: Self) -> Bool { (a.seq, a.reaction) < (b.seq, b.reaction) }
}

/// The last events of one visitor's conversation, in order, with their positions: what a
/// reconnecting stream replays after its `Last-Event-ID`. Bounded: the oldest go first, and
/// `covers` tells whether a position is still answerable from here alone.
struct VisitorEventLog: Sendable {
    /// One event as it goes out.
    struct Entry: Sendable {
        var position: VisitorEventPosition
        var event: ServerSentEvent
    }

    private(set) var entries: [Entry] = []
    /// How many entries the log keeps.
    let capacity: Int
    /// The position of the last entry dropped for room (nil: nothing dropped yet).
    private(set) var droppedThrough: VisitorEventPosition?
    /// The last position handed out (messages and reactions alike).
    private(set) var last = VisitorEventPosition(seq: 0, reaction: 0)
    /// False for the log of a session restored after a restart: what came before its first
    /// entry is not here, and only the hub's history can say what it was.
    let complete: Bool

    /// `restoredAfter`: for a session restored after a restart, the conversation's last
    /// message then; the log takes only messages after it (the hub's catch-up of older ones,
    /// from a cursor a crash left behind, is history already) and is not complete.
    init(capacity: Int, restoredAfter: Int64? = nil) {
        self.capacity = max(1, capacity)
        complete = restoredAfter == nil
        last = VisitorEventPosition(seq: restoredAfter ?? 0, reaction: 0)
    }

    /// The position of a message with `seq`, or nil when it is not after the last one (a
    /// message seen twice: once in a catch-up, once live).
    mutating func positionOfMessage(seq: Int64) -> VisitorEventPosition? {
        guard seq > last.seq else { return nil }
        last = VisitorEventPosition(seq: seq, reaction: 0)
        return last
    }

    /// The position of a reaction: after the last message and the reactions since.
    mutating func positionOfReaction() -> VisitorEventPosition {
        last.reaction += 1
        return last
    }

    /// Appends an event (its position from the two functions above).
    mutating func append(_ event: ServerSentEvent, at position: VisitorEventPosition) {
        entries.append(Entry(position: position, event: event))
        if entries.count > capacity {
            let dropped = entries.count - capacity
            droppedThrough = entries[dropped - 1].position
            entries.removeFirst(dropped)
        }
    }

    /// Whether everything after `position` is still here (nil: from the start).
    func covers(after position: VisitorEventPosition?) -> Bool {
        guard complete else { return false }
        guard let droppedThrough else { return true }
        guard let position else { return false }
        return position >= droppedThrough
    }

    /// The events after `position` (nil: all kept).
    func events(after position: VisitorEventPosition?) -> ArraySlice<Entry> {
        guard let position else { return entries[...] }
        // Positions only grow: the first entry past `position` starts the answer.
        let start = entries.firstIndex { $0.position > position } ?? entries.endIndex
        return entries[start...]
    }
}
