import Foundation
import ParleyCore

/// One unit of a conversation's serial work.
enum WorkItem: Sendable {
    /// A message from someone in the conversation.
    case message(Message)
    /// The bot joined this group.
    case joined
    /// An `ask` timeout fired.
    case timeout(StepPosition, Date)
    /// The rest of a plan after a `wait` is due: the delayed plan with this id in the
    /// conversation's state (gone if it already ran).
    case resume(UUID)
    /// Agents resolved the ticket: the bot answers again.
    case resolved(ticket: Int)
}

/// A conversation's queue: items handled strictly in order, by one task at a time.
struct Lane: Sendable {
    var items: [WorkItem] = []
    var head = 0
    var running = false
    /// The state, once loaded from the store.
    var state: ConversationState?
    /// The message being handled: its changes of `state` are written when it is done,
    /// together with taking it out of the inbox (`stateChanged`: whether there are any).
    var handling: String?
    var stateChanged = false
    /// Recent lines (`name: text`), for hand-off tickets.
    var recent = RecentLines()
    /// When work was last queued (the runtime's count of queued items then): idle lanes
    /// are evicted least recently used first.
    var lastUsed = 0

    /// Nothing queued, running or being handled: the lane holds only caches (the state is
    /// in the store) and the recent lines, and can be dropped.
    var isIdle: Bool { !running && head >= items.count && handling == nil }

    /// Queues `item`; true when no task drains the lane yet (the caller starts one: the
    /// lane counts as running from now on).
    mutating func push(_ item: WorkItem) -> Bool {
        items.append(item)
        guard !running else { return false }
        running = true
        return true
    }

    /// Queues `first` ahead of what waits; true when no task drains the lane yet (as `push`).
    mutating func pushFirst(_ first: [WorkItem]) -> Bool {
        items.insert(contentsOf: first, at: head)
        guard !running else { return false }
        running = true
        return true
    }

    /// The next item; nil once the queue is empty, and the lane is no longer running (the
    /// draining task ends: the next `push` starts another).
    mutating func pop() -> WorkItem? {
        guard head < items.count else {
            items.removeAll(keepingCapacity: true)
            head = 0
            running = false
            return nil
        }
        // A lane that never empties (a busy conversation) would otherwise keep every
        // handled message alive: drop the handled half once it is the bigger one.
        if head >= 32, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        defer { head += 1 }
        return items[head]
    }
}
