import ParleyStore

extension MatrixCryptoStore {
    /// The crypto store's tables. `pickle` columns hold only pickles under the store's
    /// `PickleKey`; the other columns are public (ids, public keys, counters, times).
    static let migrations = Migrations(name: "crypto", steps: [
        """
        -- The device's Olm account: one row.
        CREATE TABLE crypto_account (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            user_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            pickle TEXT NOT NULL
        );
        -- Olm sessions with other devices, found by the other device's curve25519 key.
        CREATE TABLE crypto_olm_sessions (
            sender_key TEXT NOT NULL,
            session_id TEXT NOT NULL,
            pickle TEXT NOT NULL,
            last_used REAL NOT NULL,
            PRIMARY KEY (sender_key, session_id)
        );
        -- Megolm sessions others shared with this device (m.room_key), to read room messages.
        CREATE TABLE crypto_inbound_group_sessions (
            room_id TEXT NOT NULL,
            sender_key TEXT NOT NULL,
            session_id TEXT NOT NULL,
            pickle TEXT NOT NULL,
            first_known_index INTEGER NOT NULL,
            shared_by TEXT NOT NULL,
            PRIMARY KEY (room_id, sender_key, session_id)
        );
        -- This device's sending Megolm session per room; rotation reads created_at and messages_sent.
        CREATE TABLE crypto_outbound_group_sessions (
            room_id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            pickle TEXT NOT NULL,
            created_at REAL NOT NULL,
            messages_sent INTEGER NOT NULL
        );
        -- Users whose devices are tracked; dirty when their device list changed (re-query them).
        CREATE TABLE crypto_tracked_users (
            user_id TEXT PRIMARY KEY,
            dirty INTEGER NOT NULL
        );
        -- Their devices, as /keys/query gave them after the self-signature verified.
        CREATE TABLE crypto_devices (
            user_id TEXT NOT NULL REFERENCES crypto_tracked_users (user_id) ON DELETE CASCADE,
            device_id TEXT NOT NULL,
            keys_json TEXT NOT NULL,
            PRIMARY KEY (user_id, device_id)
        );
        """,
        """
        -- The devices each room's outbound session was shared with (m.room_key sent), so a new
        -- member's device gets the key once; rows of a retired session go with it.
        CREATE TABLE crypto_outbound_shared (
            room_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            PRIMARY KEY (room_id, session_id, user_id, device_id)
        );
        """,
        """
        -- The account's cross-signing keys (usage: master, self_signing, user_signing), pickled.
        CREATE TABLE crypto_cross_signing (
            usage TEXT PRIMARY KEY,
            pickle TEXT NOT NULL
        );
        -- Small facts about what the server holds: which keys were uploaded, which device signed.
        CREATE TABLE crypto_state (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """,
        """
        -- The event each inbound Megolm message index opened: the same index under another
        -- event id is a replay, refused across restarts too (kept for `messageIndexRetention`).
        CREATE TABLE crypto_message_indexes (
            sender_key TEXT NOT NULL,
            session_id TEXT NOT NULL,
            message_index INTEGER NOT NULL,
            event_id TEXT NOT NULL,
            ts REAL NOT NULL,
            PRIMARY KEY (sender_key, session_id, message_index)
        );
        CREATE INDEX crypto_message_indexes_ts ON crypto_message_indexes(ts);
        """,
    ], postgresSteps: [
        // SQLite's tables as its four steps left them; `crypto_olm_sessions` numbers its rows
        // in an explicit `rowid` (SQLite's implicit one), the tie-break of `olmSessions`.
        """
        CREATE TABLE crypto_account (
            id BIGINT PRIMARY KEY CHECK (id = 1),
            user_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            pickle TEXT NOT NULL
        );
        CREATE TABLE crypto_olm_sessions (
            rowid BIGINT GENERATED ALWAYS AS IDENTITY,
            sender_key TEXT NOT NULL,
            session_id TEXT NOT NULL,
            pickle TEXT NOT NULL,
            last_used DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (sender_key, session_id)
        );
        CREATE TABLE crypto_inbound_group_sessions (
            room_id TEXT NOT NULL,
            sender_key TEXT NOT NULL,
            session_id TEXT NOT NULL,
            pickle TEXT NOT NULL,
            first_known_index BIGINT NOT NULL,
            shared_by TEXT NOT NULL,
            PRIMARY KEY (room_id, sender_key, session_id)
        );
        CREATE TABLE crypto_outbound_group_sessions (
            room_id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            pickle TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            messages_sent BIGINT NOT NULL
        );
        CREATE TABLE crypto_tracked_users (
            user_id TEXT PRIMARY KEY,
            dirty BIGINT NOT NULL
        );
        CREATE TABLE crypto_devices (
            user_id TEXT NOT NULL REFERENCES crypto_tracked_users (user_id) ON DELETE CASCADE,
            device_id TEXT NOT NULL,
            keys_json TEXT NOT NULL,
            PRIMARY KEY (user_id, device_id)
        );
        CREATE TABLE crypto_outbound_shared (
            room_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            PRIMARY KEY (room_id, session_id, user_id, device_id)
        );
        CREATE TABLE crypto_cross_signing (
            usage TEXT PRIMARY KEY,
            pickle TEXT NOT NULL
        );
        CREATE TABLE crypto_state (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE crypto_message_indexes (
            sender_key TEXT NOT NULL,
            session_id TEXT NOT NULL,
            message_index BIGINT NOT NULL,
            event_id TEXT NOT NULL,
            ts DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (sender_key, session_id, message_index)
        );
        CREATE INDEX crypto_message_indexes_ts ON crypto_message_indexes(ts);
        """,
    ])
}
