import ParleyCore

extension Hub {
    /// Opens the event stream of `transport` with its catch-up.
    func subscribe(_ transport: HubTransport) throws -> AsyncStream<TransportEvent> {
        try subscribe(transport) { limit in
            let (stream, continuation) = AsyncStream.makeStream(of: TransportEvent.self, bufferingPolicy: .bufferingOldest(limit))
            return (stream, .single(continuation))
        }
    }

    /// Opens the batched event queue of `transport` with its catch-up.
    func subscribeQueue(_ transport: HubTransport) throws -> BatchQueue<TransportEvent> {
        try subscribe(transport) { limit in
            let queue = BatchQueue<TransportEvent>(limit: limit)
            return (queue, .batched(queue))
        }
    }

    private func subscribe<Stream: Sendable>(_ transport: HubTransport, open: (Int) -> (Stream, EventSink)) throws -> Stream {
        let database = self.database
        return try state.withLock { state in
            if let refusal = state.faults.connectRefusal(user: transport.userID) { throw refusal }
            return try state.subscribe(transport: transport.id, user: transport.userID, load: { index, after in
                guard let database else { return [] }
                return try database.messages(channel: index, after: after, limit: .max)
            }, open: open)
        }
    }

    /// Ends the streams of `transports` (all of `user`); `dropped` marks them as cut off by
    /// the network (sends fail until they reconnect). Saves the user's cursors on a
    /// persistent hub (best effort: a failed write only means a longer catch-up later).
    /// Returns the held-back sends to fail.
    @discardableResult
    func endStreams(of user: String, transports: [Int], dropped: Bool) -> [InFlightSend] {
        state.withLock { state in
            var failing: [InFlightSend] = []
            if dropped {
                failing = state.drop(user: user, transports: transports)
            } else {
                for transport in transports { state.unsubscribe(transport: transport, user: user) }
            }
            try? database?.saveCursors(state, of: user)
            return failing
        }
    }

    /// Messages of `channel` that `user` may see with `seq > after`, oldest first.
    func history(of channel: Channel, via transport: HubTransport, after seq: Int64, limit: Int) throws -> [Envelope] {
        guard limit > 0 else { return [] }
        let user = transport.userID
        let found: (index: Int, key: ChannelKey, envelopes: [Envelope])? = try state.withLock { state throws(ParleyError) in
            try state.requireConnected(transport.id, user: user)
            guard let index = try state.readableChannel(channel, for: user) else { return nil }
            let channelState = state.channels[index]
            guard database == nil else { return (index, channelState.key, []) }
            var envelopes: [Envelope] = []
            for message in channelState.messages[channelState.firstIndex(after: seq)...] where message.isVisible(to: user) {
                envelopes.append(message.envelope(channelNumber: index, key: channelState.key, viewer: user))
                if envelopes.count == limit { break }
            }
            return (index, channelState.key, envelopes)
        }
        guard let found else { return [] }
        guard let database else { return found.envelopes }
        // Visibility filtering may thin out a page: read on until `limit` or the end.
        var envelopes: [Envelope] = []
        var after = seq
        while envelopes.count < limit {
            let page = try database.messages(channel: found.index, after: after, limit: limit)
            for message in page where message.isVisible(to: user) && envelopes.count < limit {
                envelopes.append(message.envelope(channelNumber: found.index, key: found.key, viewer: user))
            }
            guard let last = page.last, page.count == limit else { break }
            after = last.seq
        }
        return envelopes
    }

    /// Members of a channel `user` belongs to, sorted.
    func members(of channel: Channel, via transport: HubTransport) throws -> [String] {
        let user = transport.userID
        return try state.withLock { state throws(ParleyError) in
            try state.requireConnected(transport.id, user: user)
            if channel.kind == .person {
                try state.requireUsers([channel.id])
                return [user, channel.id].sorted()
            }
            guard let index = try state.readableChannel(channel, for: user) else { return [] }
            return state.channels[index].members.keys.sorted()
        }
    }

    /// Adds or removes `transport`'s user's reaction; members who see the message are told.
    func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool, via transport: HubTransport) throws {
        guard !emoji.isEmpty else { throw ParleyError(.invalidArgument, "an emoji must not be empty", context: ["message": messageID]) }
        let user = transport.userID
        try state.withLock { state in
            try state.requireConnected(transport.id, user: user)
            let target = try state.reactionTarget(messageID: messageID, in: channel, user: user)
            let changed: HubMessage?
            if let database {
                changed = try database.setReaction(emoji, at: target.seq, in: target.index, user: user, added: added)
            } else {
                changed = try state.setReaction(emoji, at: target.seq, in: target.index, user: user, added: added)
            }
            if let changed {
                state.announceReaction(emoji, on: changed, in: target.index, user: user, added: added, from: transport.id)
            }
        }
    }
}

extension HubState {
    /// The channel `user` reads as `channel`: nil for a person channel nobody wrote in yet.
    func readableChannel(_ channel: Channel, for user: String) throws(ParleyError) -> Int? {
        switch channel.kind {
        case .person:
            try requireUsers([channel.id])
            return channelIndex[.person(user, channel.id)]
        case .group:
            let index = try groupIndex(channel.id)
            guard channels[index].members[user] != nil else {
                throw ParleyError(.permissionDenied, "not a member of the group", context: ["channel": channel.target, "user": user])
            }
            return index
        case .local:
            throw ParleyError(.invalidArgument, "local channels exist only on the client", context: ["channel": channel.target])
        }
    }
}
