import Foundation
import ParleyCore

/// What the transport knows of its account's rooms, as one value: the rooms it is in, which
/// of them are direct rooms and with whom, their encryption and members, the aliases it
/// resolved. `forget` drops a room from every map at once, so no map keeps a room the
/// others have let go.
struct RoomDirectory {
    /// The rooms the account is in.
    var joined: Set<String> = []
    /// Whether `joined` was read from the server (before the first sync: `loadRooms`).
    var joinedLoaded = false
    /// Direct rooms from `m.direct` that the account is in: room id → the other user.
    var direct: [String: String] = [:]
    /// The direct rooms this process added to `m.direct` (room id → user).
    var ownDirect: [String: String] = [:]
    /// Joined rooms outside `m.direct` found not to be a direct room this account made
    /// (`adoptOrphanedDirectRooms`): not asked about again.
    var notOwnDirect: Set<String> = []
    /// Known encryption state per room (absent: not checked yet).
    var encrypted: [String: Bool] = [:]
    /// The `m.room.encryption` content of encrypted rooms (rotation settings).
    var encryptionSettings: [String: JSONValue] = [:]
    /// Joined and invited members of encrypted rooms, for key sharing; dropped on any membership change.
    var members: [String: [String]] = [:]
    /// Encrypted rooms already warned about (once each).
    var warned: Set<String> = []
    /// Room aliases resolved: alias → room id.
    var aliases: [String: String] = [:]
    /// Event ids marked seen per room since its last prune.
    var unprunedSeen: [String: Int] = [:]

    /// The account's direct room with `user` it is in (the first by id), if any.
    func directRoom(with user: String) -> String? {
        direct.filter { $0.value == user && joined.contains($0.key) }.keys.sorted().first
    }

    /// Joined rooms neither known as direct rooms nor found not to be this account's.
    var unknownJoined: Set<String> {
        joined.subtracting(direct.keys).subtracting(ownDirect.keys).subtracting(notOwnDirect)
    }

    /// Rebuilds the room → user map from an `m.direct` content (user id → room ids), keeping
    /// the rooms the account is in: `m.direct` keeps every direct room it was ever in.
    mutating func applyDirect(_ content: JSONValue) {
        var map = Self.directMap(content)
        // A sync's copy can predate this process's own last update: its rooms are kept.
        for (room, user) in ownDirect where map[room] == nil { map[room] = user }
        direct = map.filter { joined.contains($0.key) }
    }

    /// The direct rooms of an `m.direct` content: room id → the other user.
    static func directMap(_ content: JSONValue) -> [String: String] {
        var map: [String: String] = [:]
        for (user, rooms) in content.objectValue ?? [:] {
            for room in rooms.arrayValue ?? [] { if let room = room.stringValue { map[room] = user } }
        }
        return map
    }

    /// Drops what is kept about a room the account left, so the maps follow the rooms it is
    /// in (at most `maxRooms`, however many it was invited to and kicked from).
    mutating func forget(_ room: String) {
        joined.remove(room)
        direct[room] = nil
        ownDirect[room] = nil
        notOwnDirect.remove(room)
        encrypted[room] = nil
        encryptionSettings[room] = nil
        members[room] = nil
        warned.remove(room)
        unprunedSeen[room] = nil
    }
}
