import Foundation
import ParleyCore

/// How a bot treats end-to-end encrypted rooms (`transport.encryption.mode`).
public enum MatrixEncryptionMode: String, Sendable, CaseIterable {
    /// Encrypted rooms are refused with a warning: nothing from them is delivered, sends fail.
    case off
    /// Answers in encrypted rooms; creates plain direct rooms.
    case allow
    /// Answers in encrypted rooms and creates its direct rooms encrypted.
    case `default`
    /// Only encrypted rooms: plain rooms are refused as `off` refuses encrypted ones.
    case require

    /// Whether encrypted rooms are served.
    public var servesEncrypted: Bool { self != .off }
}

/// End-to-end encryption as the transport needs it, implemented over libolm in
/// `ParleyMatrixCrypto` so this module (and every host without encryption) links no crypto.
///
/// The transport calls it from its one sync loop and its per-room send queues:
/// - ``start(client:userID:deviceID:password:)`` once the session is established, before the
///   first sync (publishes the device's keys; the password answers the homeserver's
///   user-interactive auth when cross-signing keys are uploaded);
/// - ``handleSync(_:client:)`` with each `/sync` answer before its rooms, so room keys that
///   came as to-device messages are stored before the events they open, and before the
///   sync position that acknowledges them is saved;
/// - ``decrypt(_:room:)`` for each `m.room.encrypted` room event;
/// - ``encrypt(type:content:room:members:settings:client:)`` before each send into an
///   encrypted room;
/// - ``membersLeft(room:)`` when someone leaves an encrypted room (the next message must use
///   a new session the leaver never had).
public protocol MatrixEncryption: Sendable {
    func start(client: MatrixClient, userID: String, deviceID: String, password: String?) async throws
    func handleSync(_ response: JSONValue, client: MatrixClient) async throws
    /// The event with its decrypted `type` and `content` (other fields kept), or `.missingKey`
    /// when the room key has not arrived (hold it and try again), or `.failed` with why.
    func decrypt(_ event: JSONValue, room: String) async -> MatrixDecryption
    /// The `m.room.encrypted` content to send instead of `content` of `type`, after sharing
    /// the room's session with every device of `members` that lacks it. `settings` is the
    /// room's `m.room.encryption` content (rotation period and message count).
    func encrypt(type: String, content: JSONValue, room: String, members: [String], settings: JSONValue,
                 client: MatrixClient) async throws -> JSONValue
    func membersLeft(room: String) async
    /// Asks the sender's device for the key of an event ``decrypt(_:room:)`` found no session
    /// for (`m.room_key_request`; once per session).
    func requestKey(for event: JSONValue, room: String, client: MatrixClient) async
    /// Shares the sessions of many rooms at once (a broadcast's batch), so the sends after it
    /// find every key already shared.
    func share(rooms: [MatrixRoomKeyShare], client: MatrixClient) async throws
    /// A file encrypted for an encrypted room: the ciphertext to upload, and the event's
    /// `file` object (`EncryptedFile`: key, IV, hash) without its `url`, which the upload gives.
    func encryptAttachment(_ data: Data) throws -> (ciphertext: Data, file: [String: JSONValue])
}

/// A room whose session ``MatrixEncryption/share(rooms:client:)`` shares: its members and its
/// `m.room.encryption` content.
public struct MatrixRoomKeyShare: Sendable {
    public let room: String
    public let members: [String]
    public let settings: JSONValue

    public init(room: String, members: [String], settings: JSONValue) {
        self.room = room
        self.members = members
        self.settings = settings
    }
}

/// What ``MatrixEncryption/decrypt(_:room:)`` made of an event.
public enum MatrixDecryption: Sendable {
    case decrypted(JSONValue)
    /// The session's key is not here yet; the session id says which one to wait for.
    case missingKey(sessionID: String)
    case failed(String)
}
