/// A conversation's lane: its work, handled strictly in order by one drain task at a time,
/// and what the runtime keeps of the conversation between items.
///
/// The lane's life is `Phase`, and every change of it is a method here returning what the
/// runtime must do (start a drain task, handle an item, write the state now or later): the
/// runtime performs those actions, and the rules are tested without a runtime.
///
///     idle ──push──▶ draining ──next() with nothing queued──▶ idle
///                    draining ──beginHandling──▶ draining(handling) ──finishHandling──▶ draining
struct Lane: Sendable {
    enum Phase: Sendable {
        /// No task drains the lane and nothing is queued: the lane holds only caches (the
        /// state is in the store) and the recent lines, and can be evicted. `spare` is the
        /// emptied queue, kept so that the next push reuses its storage.
        case idle(spare: LaneQueue)
        /// One task drains `queue` in order (the runtime may hold its start until the bot
        /// has started). The queue is empty while its last item is handled.
        case draining(LaneQueue, handling: Handling?)
    }

    /// The message being handled: its changes of the state are written when it is done,
    /// together with taking it out of the inbox.
    struct Handling: Sendable, Equatable {
        var message: String
        /// Whether the state changed since the message was taken.
        var stateChanged = false
    }

    /// What the runtime does after queueing work.
    enum PushAction: Equatable {
        /// No task drained the lane: the runtime starts one (the lane drains from now on).
        case startDrain
        /// The task draining the lane takes the work in its turn.
        case queued
    }

    /// When the runtime writes a changed state.
    enum StateWrite: Equatable {
        /// Now.
        case now
        /// When the message being handled is done (`finishHandling`), in the same write.
        case afterHandling
    }

    private(set) var phase = Phase.idle(spare: LaneQueue())
    /// The state, once loaded from the store.
    var state: ConversationState?
    /// Recent lines (`name: text`), for hand-off tickets.
    var recent = RecentLines()
    /// When work was last queued (the runtime's count of queued items then): idle lanes
    /// are evicted least recently used first.
    private(set) var lastUsed = 0

    /// Nothing queued, drained or handled: the runtime may drop the lane.
    var isEvictable: Bool {
        if case .idle = phase { return true }
        return false
    }

    /// Whether message `id` is being handled.
    func isHandling(_ id: String) -> Bool {
        if case .draining(_, let handling?) = phase { return handling.message == id }
        return false
    }

    // MARK: - Transitions
    //
    // Each one takes the queue out of `phase` before changing it (leaving an empty queue,
    // which allocates nothing), so the queue's storage is never shared and never copied.

    /// Queues `item`, stamping the lane as used at `stamp`.
    mutating func push(_ item: WorkItem, stamp: Int) -> PushAction {
        lastUsed = stamp
        return enqueue { $0.append(item) }
    }

    /// Queues `first` ahead of what waits (messages a previous run left unhandled).
    mutating func pushFirst(_ first: [WorkItem]) -> PushAction {
        enqueue { $0.prepend(first) }
    }

    /// Changes the queue in place (moved out of the enum first, so its buffer is never shared
    /// and never copied) and says whether a drain must start.
    @inline(__always)
    private mutating func enqueue(_ change: (inout LaneQueue) -> Void) -> PushAction {
        switch phase {
        case .idle(var queue):
            phase = .idle(spare: LaneQueue())
            change(&queue)
            phase = .draining(queue, handling: nil)
            return .startDrain
        case .draining(var queue, let handling):
            phase = .idle(spare: LaneQueue())
            change(&queue)
            phase = .draining(queue, handling: handling)
            return .queued
        }
    }

    /// The drain task's next item; nil once the queue is empty: the lane is idle then and
    /// the task ends (the next push starts another). An idle lane has no drain task: a
    /// call then gets nil and changes nothing.
    mutating func next() -> WorkItem? {
        guard case .draining(var queue, let handling) = phase else { return nil }
        phase = .idle(spare: LaneQueue())
        if let item = queue.popFirst() {
            phase = .draining(queue, handling: handling)
            return item
        }
        queue.reset()
        phase = .idle(spare: queue)
        return nil
    }

    /// Marks message `id` as being handled by the drain task. Refused (false, nothing
    /// changes) on an idle lane, which has no drain task, and while another message is
    /// handled: one lane handles one item at a time.
    @discardableResult
    mutating func beginHandling(_ id: String) -> Bool {
        guard case .draining(let queue, nil) = phase else { return false }
        phase = .draining(queue, handling: Handling(message: id))
        return true
    }

    /// Caches `state` as the conversation's state, and says when the runtime writes it.
    mutating func cache(_ state: ConversationState) -> StateWrite {
        self.state = state
        guard case .draining(let queue, var handling?) = phase else { return .now }
        handling.stateChanged = true
        phase = .draining(queue, handling: handling)
        return .afterHandling
    }

    /// Ends the handling of message `id`; true when the state changed meanwhile (the
    /// runtime writes it now). For a message not being handled: false, nothing changes.
    mutating func finishHandling(_ id: String) -> Bool {
        guard case .draining(let queue, let handling?) = phase, handling.message == id else { return false }
        phase = .draining(queue, handling: nil)
        return handling.stateChanged
    }
}
