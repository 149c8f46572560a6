import ParleyCore

/// The `/sync` filter Parley uploads: no presence, no ephemeral events, only the account data
/// and room events a bot acts on, members lazy-loaded.
enum SyncFilter {
    /// The room event types the transport handles (also the `/messages` filter of backfills).
    static let timelineTypes: [JSONValue] = [
        "m.room.message", "m.reaction", "m.room.redaction", "m.room.member", "m.room.encryption", "m.room.encrypted",
    ]

    /// The filter body for `POST /user/{userId}/filter`.
    static func make(timelineLimit: Int) -> JSONValue {
        [
            "presence": ["not_types": ["*"]],
            "account_data": ["types": ["m.direct"]],
            "room": [
                "ephemeral": ["not_types": ["*"]],
                "account_data": ["not_types": ["*"]],
                "state": ["types": ["m.room.encryption", "m.room.member"], "lazy_load_members": true],
                "timeline": ["types": .array(timelineTypes), "limit": .int(Int64(timelineLimit))],
            ],
        ]
    }

    /// The `RoomEventFilter` for `/rooms/{id}/messages` while backfilling.
    static let backfill: JSONValue = ["types": .array(timelineTypes)]
}
