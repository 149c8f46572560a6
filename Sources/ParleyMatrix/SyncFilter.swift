import ParleyCore

/// The `/sync` filter Parley uploads: no presence, no ephemeral events, only the account data
/// and room events a bot acts on, members lazy-loaded, and none of the account's own events.
///
/// Own events are left out because each one would end the long-poll at once: every answer
/// cost a second sync (its echo) and, while that sync was out, a waiting command waited for
/// the next. The account's own membership still arrives, in a room's `state` section (how the
/// transport sees its own joins), and `unsigned.membership` on each event says whether the
/// account was in the room when it was sent (how old history is told apart).
enum SyncFilter {
    /// The room event types the transport handles (also the `/messages` filter of backfills).
    static let timelineTypes: [JSONValue] = [
        "m.room.message", "m.reaction", "m.room.redaction", "m.room.member", "m.room.encryption", "m.room.encrypted",
    ]

    /// The filter body for `POST /user/{userId}/filter` of `userID`. A `uniqueMarker` also
    /// excludes a sender that cannot exist (the `.invalid` server), which changes the filter's
    /// text but not its meaning.
    static func make(userID: String, timelineLimit: Int, uniqueMarker: String? = nil) -> JSONValue {
        var excluded: [JSONValue] = [.string(userID)]
        if let uniqueMarker { excluded.append(.string("@parley-\(uniqueMarker.lowercased()):parley.invalid")) }
        let timeline: JSONValue = ["types": .array(timelineTypes), "limit": .int(Int64(timelineLimit)), "not_senders": .array(excluded)]
        return [
            "presence": ["not_types": ["*"]],
            "account_data": ["types": ["m.direct"]],
            "room": [
                "ephemeral": ["not_types": ["*"]],
                "account_data": ["not_types": ["*"]],
                "state": ["types": ["m.room.encryption", "m.room.member"], "lazy_load_members": true],
                "timeline": timeline,
            ],
        ]
    }

    /// The `RoomEventFilter` for `/rooms/{id}/messages` while backfilling.
    static let backfill: JSONValue = ["types": .array(timelineTypes)]
}
