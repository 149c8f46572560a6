import Foundation
import ParleyCore

/// How a `MatrixTransport` connects and behaves.
public struct MatrixConfiguration: Sendable {
    /// How the account proves who it is.
    public enum Credentials: Sendable, Hashable {
        /// Log in with a password; the token and device are stored and reused on restart.
        case password(String)
        /// Use an existing access token (checked with whoami at start).
        case accessToken(String)
    }

    /// A pending invite, for the auto-join policy.
    public struct Invite: Sendable, Hashable {
        /// The room invited to.
        public var roomID: String
        /// Who sent the invite (empty when the server did not say).
        public var inviter: String
        /// The inviter marked the room as a direct chat.
        public var isDirect: Bool

        /// An invite to `roomID` by `inviter`.
        public init(roomID: String, inviter: String, isDirect: Bool) {
            self.roomID = roomID
            self.inviter = inviter
            self.isDirect = isDirect
        }
    }

    /// The homeserver base URL, e.g. `http://127.0.0.1:8448`.
    public var homeserver: URL
    /// The full Matrix user id, e.g. `@helpdesk:localhost`.
    public var userID: String
    /// A password or an access token.
    public var credentials: Credentials
    /// The SQLite file for the session, sync position and message record (one per account).
    public var databasePath: String
    /// Shown in the account's device list.
    public var deviceName = "Parley"
    /// The device to log in as with a password, when this returns one (a broadcast helper logs
    /// in as its bot's own device: the server keys transaction ids by device, so a message
    /// resent by either is recognised as the same); otherwise the stored one.
    public var loginDevice: (@Sendable () -> String?)? = nil
    /// Reads the joined rooms and `m.direct` again before making a direct room: an account
    /// with no sync loop (a broadcast helper) would not know of one another process made.
    public var rereadsRoomsBeforeCreating = false
    /// How long a direct room found under this account's alias for the user, made by another
    /// process (one killed while making it), is waited for before its alias is taken back and
    /// a new room made: the server finishes a room whose maker died, but may be slow.
    public var directRoomSettleTimeout: Duration = .seconds(30)
    /// Held around each read-modify-write of `m.direct` when several processes act as this
    /// account (a cluster on one database): Matrix has no compare-and-set for account data,
    /// and two writers would lose each other's rooms.
    public var accountDataLock: (any MatrixAccountDataLock)? = nil
    /// Send plain text as `m.notice` (the bot convention: clients don't notify, bots ignore it).
    public var sendTextAsNotice = false
    /// Also send each vCard card as a `text/vcard` file (`m.file`) right behind it, for
    /// clients that import contacts from files.
    public var attachVCardFile = false
    /// Rooms the outbox sends to at once: Synapse persists each room's events one after
    /// another (~40 ms each) but different rooms in parallel; one room's messages always stay
    /// in order.
    public var concurrentRooms = 16
    /// Timeout of every request but the sync long-poll.
    public var requestTimeout: Duration = .seconds(30)
    /// The server-side long-poll of `/sync`.
    public var syncTimeout: Duration = .seconds(30)
    /// How much longer than `syncTimeout` the client waits for a sync answer.
    public var syncMargin: Duration = .seconds(15)
    /// The least time from one `/sync` request to the next. A busy account's long-poll returns
    /// at once after every event (its own sends included), and each return costs the server a
    /// sync computation; spacing them lets one sync carry what arrived meanwhile.
    public var minimumSyncInterval: Duration = .milliseconds(100)
    /// Events per room per sync before the server sets `limited` (the rest is backfilled).
    public var timelineLimit = 50
    /// Backfill stops after this many `/messages` pages of 100 (a warning is logged).
    public var maxBackfillPages = 100
    /// Reconnect backoff: doubles from `initial` up to `max`.
    public var reconnectBackoff: (initial: Duration, max: Duration) = (.milliseconds(500), .seconds(30))
    /// Decides whether an invite is accepted (joined) or declined (left).
    public var invitePolicy: @Sendable (Invite) -> Bool = { _ in true }
    /// The most rooms the account is in: further invites are declined (with a log line), since
    /// anyone can invite the account and each room costs memory (`transport.max_rooms`).
    public var maxRooms = 10_000
    /// Events the stream holds for a consumer that falls behind before the next `/sync`
    /// waits for it: far more than a bot handles in one sync round, and even of the largest
    /// events (64 KiB) some 64 MiB.
    public var eventBufferLimit = MatrixConfiguration.defaultEventBufferLimit
    /// The default `eventBufferLimit`, also `RenamingTransport`'s.
    public static let defaultEventBufferLimit = 1_000
    /// Where warnings go (encrypted rooms, backfill limits, sync errors).
    public var log: @Sendable (String) -> Void = MatrixConfiguration.standardErrorLog

    /// `parley matrix: <line>` on standard error: the default `log`.
    public static let standardErrorLog: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data("parley matrix: \(line)\n".utf8))
    }
    /// The time source for backoff waits and timestamps of sent messages.
    public var clock: any ParleyClock = SystemClock()
    /// How encrypted rooms are treated (`transport.encryption.mode`). Any mode but `off`
    /// needs `encryption`.
    public var encryptionMode = MatrixEncryptionMode.off
    /// The device's end-to-end encryption (`ParleyMatrixCrypto.MatrixE2EE`); nil with `off`.
    public var encryption: (any MatrixEncryption)?
    /// How long an encrypted event whose room key has not arrived is held before it is given
    /// up (logged and skipped), and how many are held at most.
    public var heldEventLimit = (age: Duration.seconds(300), count: 1_000)

    /// A configuration with the defaults above.
    public init(homeserver: URL, userID: String, credentials: Credentials, databasePath: String) {
        self.homeserver = homeserver
        self.userID = userID
        self.credentials = credentials
        self.databasePath = databasePath
    }
}

/// A lock shared by the processes acting as one Matrix account (see
/// `MatrixConfiguration.accountDataLock`).
public protocol MatrixAccountDataLock: Sendable {
    /// Waits (bounded) until this caller holds `key` among every process sharing it.
    func acquire(_ key: String) async throws
    /// Gives `key` back.
    func release(_ key: String) async
}
