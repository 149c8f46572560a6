import Foundation
import ParleyCore
import ParleyStore

extension HubDatabase {
    /// Rebuilds the in-memory state of a reopened hub: users, channels with their seq and
    /// members' cursors, and the idempotency receipts of the newest `receiptWindow` stored
    /// messages (older resends are looked up in the file: `receipt(channel:sender:…)`).
    func load(into state: inout HubState) throws {
        do {
            try reader.withLock { connection in
                try connection.prepare("SELECT id, profile FROM hub_users").query { row in
                    guard let id = row[0].string, let json = row[1].string else { return }
                    state.users[id] = (try? JSONDecoder().decode(Profile.self, from: Data(json.utf8))) ?? Profile(id: id)
                }
                try loadChannels(connection, into: &state)
                try connection.prepare("SELECT channel, user, cursor FROM hub_members ORDER BY channel").query { row in
                    guard let index = row[0].int, index < state.channels.count, let user = row[1].string else { return }
                    state.channels[index].members[user] = row[2].int64 ?? 0
                    state.userChannels[user, default: []].append(index)
                }
                // A crash can leave a message whose channel row lags behind: trust the message.
                try connection.prepare("SELECT channel, MAX(seq) FROM hub_messages GROUP BY channel").query { row in
                    guard let index = row[0].int, index < state.channels.count, let seq = row[1].int64 else { return }
                    if seq > state.channels[index].seq {
                        state.channels[index].seq = seq
                        state.channels[index].committedSeq = seq
                    }
                }
                var newest: [(HubState.ReceiptKey, HubState.StoredReceipt)] = []
                try connection.prepare("SELECT channel, seq, sender, client_id, time FROM hub_messages ORDER BY time DESC, seq DESC LIMIT ?")
                    .query([.integer(Int64(state.configuration.receiptWindow))]) { row in
                        guard let index = row[0].int, index < state.channels.count, let seq = row[1].int64,
                              let sender = row[2].string, let bytes = row[3].data, let time = row[4].double else { return }
                        let key = HubState.ReceiptKey(sender: sender, clientMessageID: MessageRow.uuid(from: bytes))
                        let date = Date(timeIntervalSince1970: time)
                        newest.append((key, HubState.StoredReceipt(channel: Int32(index), seq: seq, time: date.timeIntervalSinceReferenceDate)))
                    }
                // Oldest first, as they were sent: the window forgets them in that order.
                for (key, receipt) in newest.reversed() {
                    state.receipts[key] = receipt
                    state.rememberReceipt(key)
                }
            }
        } catch {
            throw Hub.storageError(error)
        }
    }

    /// Channels are numbered densely; a number never written (a person channel whose first
    /// message never committed) becomes an empty placeholder nobody can address.
    private func loadChannels(_ connection: Connection, into state: inout HubState) throws {
        try connection.prepare("SELECT number, kind, first, second, name, seq FROM hub_channels ORDER BY number").query { row in
            guard let number = row[0].int, number >= 0, let kindText = row[1].string,
                  let first = row[2].string, let second = row[3].string else { return }
            while state.channels.count < number {
                let placeholder = ChannelKey(kind: .local, first: "#\(state.channels.count)", second: "")
                _ = state.addChannel(ChannelState(key: placeholder, members: []))
            }
            let kind = Channel.Kind(rawValue: kindText) ?? .local
            var channel = ChannelState(key: ChannelKey(kind: kind, first: first, second: second), name: row[4].string, members: [])
            channel.seq = row[5].int64 ?? 0
            channel.committedSeq = channel.seq
            _ = state.addChannel(channel)
        }
    }
}
