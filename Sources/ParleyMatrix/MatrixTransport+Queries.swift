import Foundation
import ParleyCore

extension MatrixTransport {
    /// Messages this transport recorded for `channel` (sent or received since its database was
    /// created) with `seq > after`, oldest first.
    public func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] {
        try await store.history(of: channel, after: seq, limit: limit)
    }

    /// Profiles from `/profile/{userId}`, fetched a few at a time; unknown users are left out.
    /// - Throws: `invalidArgument` for more than 100 ids.
    public func profiles(of userIDs: [String]) async throws -> [Profile] {
        guard userIDs.count <= 100 else {
            throw ParleyError(.invalidArgument, "at most 100 profiles per call, got \(userIDs.count)")
        }
        try await ensureSession()
        let client = self.client
        var found: [String: Profile] = [:]
        var pending = userIDs[...]
        while !pending.isEmpty {
            let batch = pending.prefix(8)
            pending = pending.dropFirst(batch.count)
            try await withThrowingTaskGroup(of: Profile?.self) { group in
                for id in batch {
                    group.addTask {
                        do {
                            let answer = try await client.profile(userID: id)
                            return Profile(id: id, name: answer["displayname"]?.stringValue, avatar: answer["avatar_url"]?.stringValue)
                        } catch let error as ParleyError where error.code == .notFound {
                            return nil
                        }
                    }
                }
                for try await profile in group { if let profile { found[profile.id] = profile } }
            }
        }
        return userIDs.compactMap { found[$0] }
    }

    /// Joined members of a channel's room.
    public func members(of channel: Channel) async throws -> [String] {
        let room = try await roomID(for: channel)
        return try await client.joinedMembers(room: room)
    }

    /// Sets this account's display name and/or avatar (`mxc://` URL); nil leaves one unchanged.
    public func setOwnProfile(name: String? = nil, avatar: String? = nil) async throws {
        try await ensureSession()
        if let name { try await client.setDisplayName(userID: userID, name) }
        if let avatar { try await client.setAvatarURL(userID: userID, avatar) }
    }
}

extension MatrixTransport {
    /// Joins a room by id or alias (already joined is fine) and returns its room id, so a
    /// bot is in the rooms its config names before its first sync.
    public func join(_ roomIDOrAlias: String) async throws -> String {
        try await ensureSession()
        let room = try await client.join(roomIDOrAlias)
        rooms.joined.insert(room)
        if roomIDOrAlias.hasPrefix("#") { rooms.aliases[roomIDOrAlias] = room }
        return room
    }
}
