import ParleyCore

/// The `/sync` filter Parley uploads: no presence, no ephemeral events, only the account data
/// and room events a bot acts on, members lazy-loaded.
enum SyncFilter {
    /// The room event types the transport handles (also the `/messages` filter of backfills).
    static let timelineTypes: [JSONValue] = [
        "m.room.message", "m.reaction", "m.room.redaction", "m.room.member", "m.room.encryption", "m.room.encrypted",
    ]

    /// The filter body for `POST /user/{userId}/filter`. A `uniqueMarker` excludes a sender that
    /// cannot exist (the `.invalid` server), which changes the filter's text but not its meaning.
    static func make(timelineLimit: Int, uniqueMarker: String? = nil) -> JSONValue {
        var timeline: JSONValue = ["types": .array(timelineTypes), "limit": .int(Int64(timelineLimit))]
        if let uniqueMarker, case .object(var fields) = timeline {
            fields["not_senders"] = [.string("@parley-\(uniqueMarker.lowercased()):parley.invalid")]
            timeline = .object(fields)
        }
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
