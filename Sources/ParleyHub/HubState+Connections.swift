import ParleyCore

extension HubState {
    /// Opens the event stream of `transport`: a `connected` event, then every message the
    /// user missed (seq greater than its cursor, in seq order per channel), then live events.
    /// Catch-up and registration happen under the same lock as delivery, so nothing falls
    /// between them and nothing comes twice. `open` makes the stream and its sink for a
    /// buffer limit (in events).
    mutating func subscribe<Stream>(
        transport: Int, user: String, load: (Int, Int64) throws -> [HubMessage], open: (Int) -> (Stream, EventSink)
    ) throws -> Stream {
        guard !closed else { throw ParleyError(.notConnected, "the hub is closed", context: ["user": user]) }
        removeSubscriber(transport, of: user)?.finish()
        var events: [TransportEvent] = [.connection(.connected)]
        for index in userChannels[user] ?? [] {
            guard let cursor = channels[index].members[user], cursor < channels[index].seq else { continue }
            var last = max(cursor, channels[index].committedSeq)
            let key = channels[index].key
            let missed = persistent
                ? try load(index, cursor)
                : Array(channels[index].messages[channels[index].firstIndex(after: cursor)...])
            for message in missed where message.seq > cursor {
                if message.isVisible(to: user) {
                    events.append(.message(message.envelope(channelNumber: index, key: key, viewer: user)))
                }
                last = max(last, message.seq)
            }
            channels[index].members[user] = last
        }
        // Room for the whole catch-up plus the usual live backlog.
        let limit = configuration.eventBufferLimit + events.count
        let (stream, sink) = open(limit)
        for event in events { _ = sink.yield(event) }
        eventsYielded[transport, default: 0] += events.count
        dropped.remove(transport)
        subscribers[user, default: []].append(Subscriber(transport: transport, sink: sink))
        return stream
    }

    /// Closes the stream of `transport` (a `disconnected` event, then the end).
    mutating func unsubscribe(transport: Int, user: String) {
        guard let sink = removeSubscriber(transport, of: user) else { return }
        if sink.yield(.connection(.disconnected)) { eventsYielded[transport, default: 0] += 1 }
        sink.finish()
    }

    /// Drops every connection of `user` as a network failure would: streams end, sends in
    /// flight fail with `networkUnavailable`, and later sends fail until the transport
    /// reconnects. Returns the held-back sends to fail (outside the lock).
    mutating func drop(user: String, transports: [Int]) -> [InFlightSend] {
        for transport in transports {
            dropped.insert(transport)
            unsubscribe(transport: transport, user: user)
        }
        let ids = Set(transports)
        let failing = inFlight.filter { ids.contains($0.value.transport) }
        for token in failing.keys { inFlight[token] = nil }
        return Array(failing.values)
    }
}
