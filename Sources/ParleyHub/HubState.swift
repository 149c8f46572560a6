import Foundation
import ParleyCore

/// Everything the hub knows, guarded by one lock in `Hub`. Methods run under that lock and
/// never suspend, so each send is one short critical section: seq assignment, storage and
/// delivery happen in one order, which is what keeps channels gap-free and unreordered.
struct HubState: Sendable {
    /// One open event stream of a transport.
    struct Subscriber: Sendable {
        let transport: Int
        let sink: EventSink
    }

    /// Where a receipt points; the receipt time is kept so resends answer without a lookup.
    struct StoredReceipt: Sendable {
        let channel: Int32
        let seq: Int64
        let time: Double
    }

    /// The idempotency key: a client message number is unique per sender.
    struct ReceiptKey: Hashable, Sendable {
        let sender: String
        let clientMessageID: UUID

        /// Hashes the random UUID only (it spreads well on its own); equality still
        /// compares the sender. Spares hashing a string on every send. Its two halves go in
        /// as two integers, cheaper than `UUID`'s own hashing through the hasher's byte-buffer
        /// path.
        func hash(into hasher: inout Hasher) {
            let halves = withUnsafeBytes(of: clientMessageID.uuid) { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            hasher.combine(halves.0)
            hasher.combine(halves.1)
        }
    }

    /// True when messages go to SQLite (sends are acknowledged after the COMMIT).
    let persistent: Bool
    let configuration: HubConfiguration

    var users: [String: Profile] = [:]
    var channels: [ChannelState] = []
    var channelIndex: [ChannelKey: Int] = [:]
    /// The channels each user is a member of, in creation order.
    var userChannels: [String: [Int]] = [:]
    var receipts: [ReceiptKey: StoredReceipt] = [:]
    /// Bounds the in-memory messages and the receipts.
    var retention = HubRetention()
    var subscribers: [String: [Subscriber]] = [:]
    /// Events handed to each transport's streams so far (`HubTransport.deliveredEventCount`).
    var eventsYielded: [Int: Int] = [:]
    /// Every transport made by `Hub.connect(user:)`: id → user.
    var transports: [Int: String] = [:]
    /// Transports whose connection the hub dropped; they fail sends until they reconnect.
    var dropped: Set<Int> = []
    var faults = HubFaults()
    /// Set by `Hub.close()`.
    var closed = false
    var rateLimits: [String: HubRateLimit] = [:]
    var buckets = TokenBuckets<String>()
    /// While not nil, consumers to wake collect here instead of being woken under the lock;
    /// `Hub.withDeferredWakes` wakes them once the lock is released.
    var deferredWakes: [BatchQueue<TransportEvent>]?
    /// Messages waiting for their group commit (persistent hubs only).
    var pending: [PendingWrite] = []
    var flushing = false
    /// Person channels created since the last group commit (persistent hubs only).
    var channelsToSave: [Int] = []
    /// Resends of messages in the transaction running now, answered after its COMMIT.
    var lateWaiters: [MessageLocation: [SendWaiter]] = [:]
    var inFlight: [Int: InFlightSend] = [:]
    var nextToken = 0

    init(persistent: Bool, configuration: HubConfiguration) {
        self.persistent = persistent
        self.configuration = configuration
    }

    // MARK: - Channels

    /// The number of the channel `user` names `channel`, creating a person channel on first use.
    mutating func resolve(_ channel: Channel, for user: String) throws(ParleyError) -> Int {
        switch channel.kind {
        case .person:
            // Users are never removed: an existing channel proves the other user exists.
            let key = ChannelKey.person(user, channel.id)
            if let index = channelIndex[key] { return index }
            guard users[channel.id] != nil else {
                throw ParleyError(.notFound, "no such user", context: ["channel": channel.target])
            }
            let index = addChannel(ChannelState(key: key, members: [user, channel.id]))
            // Written by the next group commit, before or with its first message (even if
            // this send fails, so later messages never point at an unsaved channel).
            if persistent { channelsToSave.append(index) }
            return index
        case .group:
            guard let index = channelIndex[.group(channel.id)] else {
                throw ParleyError(.notFound, "no such group", context: ["channel": channel.target])
            }
            guard channels[index].members[user] != nil else {
                throw ParleyError(.permissionDenied, "not a member of the group", context: ["channel": channel.target, "user": user])
            }
            return index
        case .local:
            throw ParleyError(.invalidArgument, "local channels exist only on the client", context: ["channel": channel.target])
        }
    }

    /// The number of `channel` as `user` addresses it, if it exists (nothing is created).
    func existingIndex(of channel: Channel, for user: String) -> Int? {
        switch channel.kind {
        case .person: channelIndex[ChannelKey.person(user, channel.id)]
        case .group: channelIndex[.group(channel.id)]
        case .local: nil
        }
    }

    /// Adds a channel and indexes it; returns its number.
    mutating func addChannel(_ state: ChannelState) -> Int {
        let index = channels.count
        channels.append(state)
        channelIndex[state.key] = index
        for member in state.members.keys { userChannels[member, default: []].append(index) }
        return index
    }

    /// Fails with `networkUnavailable` while the hub has dropped `transport`'s connection.
    func requireConnected(_ transport: Int, user: String) throws(ParleyError) {
        guard dropped.isEmpty || !dropped.contains(transport) else {
            throw ParleyError(.networkUnavailable, "connection dropped", context: ["user": user])
        }
    }

    // MARK: - Delivery

    /// Hands a committed message to the online members allowed to see it and moves their
    /// cursors. Offline members keep their cursor and get it on catch-up. Walks whichever is
    /// smaller: the channel's members or the users online (a big group with few online).
    mutating func deliver(_ message: HubMessage, in index: Int, from transport: Int) {
        if channels[index].members.count <= subscribers.count {
            // Walk by index and write cursors through `values`, so the member dictionary is
            // updated in place rather than copied for every message.
            var position = channels[index].members.startIndex
            while position != channels[index].members.endIndex {
                let (member, cursor) = channels[index].members[position]
                if cursor < message.seq, offer(message, in: index, to: member, from: transport) {
                    channels[index].members.values[position] = message.seq
                }
                channels[index].members.formIndex(after: &position)
            }
        } else {
            for user in Array(subscribers.keys) {
                guard let cursor = channels[index].members[user], cursor < message.seq else { continue }
                if offer(message, in: index, to: user, from: transport) { channels[index].members[user] = message.seq }
            }
        }
        if channels[index].committedSeq < message.seq { channels[index].committedSeq = message.seq }
    }

    /// Yields `message` to an online `member` if it may see it. True when the member's
    /// cursor may move past it (given, or not for this member to see).
    private mutating func offer(_ message: HubMessage, in index: Int, to member: String, from transport: Int) -> Bool {
        guard let streams = subscribers[member], !streams.isEmpty else { return false }
        guard message.isVisible(to: member) else { return true }
        let event = TransportEvent.message(message.envelope(channelNumber: index, key: channels[index].key, viewer: member))
        return yield(event, to: member, excluding: transport)
    }

    /// Yields `event` to the streams of `user` (but not the one of `transport`).
    /// A stream whose buffer is full is finished: its owner reconnects and catches up.
    /// Returns true if some stream of the user took the event or only `transport` is online.
    @discardableResult
    mutating func yield(_ event: TransportEvent, to user: String, excluding transport: Int = -1) -> Bool {
        guard let streams = subscribers[user] else { return false }
        var delivered = false
        var overflowed: [Int] = []
        for stream in streams {
            if stream.transport == transport { delivered = true; continue }
            if stream.sink.yield(event, deferringWakeInto: &deferredWakes) {
                delivered = true
                eventsYielded[stream.transport, default: 0] += 1
            } else {
                overflowed.append(stream.transport)
            }
        }
        for transport in overflowed { removeSubscriber(transport, of: user)?.finish() }
        return delivered
    }

    /// Unregisters the stream of `transport`; returns its sink for finishing.
    mutating func removeSubscriber(_ transport: Int, of user: String) -> EventSink? {
        guard var streams = subscribers[user], let position = streams.firstIndex(where: { $0.transport == transport }) else { return nil }
        let removed = streams.remove(at: position)
        subscribers[user] = streams.isEmpty ? nil : streams
        return removed.sink
    }

    /// Yields `event` to every online member of a channel.
    mutating func broadcast(_ event: TransportEvent, in index: Int, excluding transport: Int = -1) {
        for member in channels[index].members.keys { yield(event, to: member, excluding: transport) }
    }
}
