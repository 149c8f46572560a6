import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrix

/// One bot device's end-to-end encryption: the transport's `MatrixEncryption`, over libolm
/// (`ParleyCrypto`) and the device's ``MatrixCryptoStore``.
///
/// It keeps one live object per Olm session, account and outbound Megolm session, shared by
/// the sync loop (to-device messages) and the send queues (key sharing), so no ratchet step is
/// taken on a stale copy; every change is written to the store before what it produced leaves
/// the process (see the store's methods for the order).
///
/// Key requests from other devices are not answered: only the bot's own verified devices
/// could be, and a bot has no other device. Its own requests (for a held event's key) go to
/// the sender's device, which re-shares a key it meant the bot to have.
public actor MatrixE2EE: MatrixEncryption {
    let store: MatrixCryptoStore
    let log: @Sendable (String) -> Void
    let now: @Sendable () -> Date
    /// Set by ``start(client:userID:deviceID:)``.
    var device: Device?
    /// Olm sessions per device curve25519 key, most recently used first (loaded on first use).
    var olmSessions: [String: [OlmSession]] = [:]
    /// Each room's live outbound session (the store's, once read).
    var outbound: [String: OutboundState] = [:]
    /// Inbound Megolm sessions read so far (room, sender key, session id); cleared when large.
    var inbound: [InboundKey: MegolmInboundSession] = [:]
    static let inboundCacheLimit = 4_096
    /// The event each (session, message index) decrypted: the same index under another event
    /// id is a replay and refused. The store keeps them (for `messageIndexRetention`); this is
    /// its cache, bounded (cleared when full).
    var decryptedIndexes: [MessageIndexKey: String] = [:]
    static let decryptedIndexLimit = 100_000
    /// How long a decrypted message's index is remembered against replays: 90 days.
    static let messageIndexRetention: TimeInterval = 90 * 86_400
    /// Sessions whose key was asked for (each once per process).
    var requestedKeys: Set<InboundKey> = []
    /// The `/keys/query` in flight for each user: a send in another room that finds the same
    /// user stale waits for it rather than asking the server the same question again.
    var keyQueries: [String: Task<Void, any Error>] = [:]
    /// Users whose device list changed (`device_lists.changed`) while their query was in
    /// flight: the answer may predate the change, so they are marked for querying again.
    var changedDuringQuery: Set<String> = []
    /// Key requests of own devices being answered (see `handleKeyRequest`).
    var keyAnswers = 0
    /// Rooms whose key waits for the share in flight to end, to go out together with the
    /// others that came meanwhile (see `shareTogether`), and whether a share is in flight.
    var waitingShares: [(share: RoomShare, done: CheckedContinuation<Void, any Error>)] = []
    var sharing = false

    struct Device {
        let account: OlmAccount
        let userID: String
        let deviceID: String
        var keys: MatrixDeviceKeys { MatrixDeviceKeys(account: account, userID: userID, deviceID: deviceID) }
    }

    struct OutboundState {
        let session: MegolmOutboundSession
        let createdAt: Date
    }

    struct InboundKey: Hashable {
        let room: String
        let senderKey: String
        let sessionID: String
    }

    struct MessageIndexKey: Hashable {
        let session: InboundKey
        let index: UInt32
    }

    /// Encryption over `store` (opened by the caller, so a wrong pickle key fails at start).
    public init(store: MatrixCryptoStore, log: @escaping @Sendable (String) -> Void = { _ in },
                now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.log = log
        self.now = now
    }

    /// Loads the device's account (a new one when the store has none or holds another
    /// device's), uploads its device keys and any unpublished one-time and fallback keys, and
    /// cross-signs the device (see `MatrixE2EE+CrossSigning.swift`).
    public func start(client: MatrixClient, userID: String, deviceID: String, password: String?) async throws {
        let account: OlmAccount
        if let stored = await store.account(), stored.userID == userID, stored.deviceID == deviceID {
            account = stored.account
        } else {
            if let stored = await store.account() {
                log("the crypto store holds the keys of device \(stored.deviceID) of \(stored.userID); \(userID) logged in as device "
                    + "\(deviceID), which gets new keys (messages encrypted for the old device stay unreadable)")
            }
            account = try OlmAccount()
            try account.generateFallbackKey()
            try account.generateOneTimeKeys(count: account.maxNumberOfOneTimeKeys / 2)
            // Stored before the upload, so the keys the server gets are the ones kept.
            try await store.storeAccount(account, userID: userID, deviceID: deviceID)
            olmSessions = [:]
            outbound = [:]
            inbound = [:]
        }
        let device = Device(account: account, userID: userID, deviceID: deviceID)
        try await store.pruneMessageIndexes(before: now().addingTimeInterval(-Self.messageIndexRetention))
        // The device keys go up at every start: the same signed object again is accepted, and a
        // server that lost them (or a first upload whose answer was lost) gets them.
        try await device.keys.publish(through: client, includeDeviceKeys: true)
        try await store.storeAccount(account, userID: userID, deviceID: deviceID)
        self.device = device
        do {
            try await crossSign(device, client: client, password: password)
        } catch let error as ParleyError where !error.isTransient {
            // The bot still works unverified; an access-token account cannot answer the
            // password prompt a homeserver may put before replacing cross-signing keys.
            log("cross-signing \(userID)'s device \(deviceID) failed (clients will show it unverified): \(error)")
        }
    }

    /// The started device, or an error naming the missing step.
    func started() throws -> Device {
        guard let device else { throw ParleyError(.notConnected, "end-to-end encryption used before the device was started") }
        return device
    }

    /// To-device messages (room keys over Olm), one-time key counts and device list changes.
    public func handleSync(_ response: JSONValue, client: MatrixClient) async throws {
        let device = try started()
        for event in response["to_device"]?["events"]?.arrayValue ?? [] {
            if event["type"]?.stringValue == "m.room_key_request" {
                handleKeyRequest(event, device: device, client: client)
            } else {
                try await handleToDevice(event, device: device)
            }
        }
        if let lists = response["device_lists"] {
            let changed = lists["changed"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let left = lists["left"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if !changed.isEmpty { try await store.markDirty(changed) }
            changedDuringQuery.formUnion(changed.filter { keyQueries[$0] != nil })
            if !left.isEmpty { try await store.forget(left) }
        }
        do {
            try await replenishKeys(response, device: device, client: client)
        } catch let error as ParleyError where error.isTransient {
            // Not worth handling this sync's messages again for: the next sync's counts ask again.
            log("topping up the one-time keys failed (tried again with the next sync): \(error)")
        }
    }

    /// Tops up the server's one-time keys and replaces a used fallback key.
    private func replenishKeys(_ response: JSONValue, device: Device, client: MatrixClient) async throws {
        var changed = false
        if let counts = response["device_one_time_keys_count"] {
            let count = Int(counts[MatrixDeviceKeys.oneTimeKeyAlgorithm]?.intValue ?? 0)
            let needed = MatrixDeviceKeys.oneTimeKeysToGenerate(serverCount: count, unpublished: try device.account.oneTimeKeys().count,
                                                               maxOneTimeKeys: device.account.maxNumberOfOneTimeKeys)
            if needed > 0 {
                try device.account.generateOneTimeKeys(count: needed)
                changed = true
            }
        }
        if let unused = response["device_unused_fallback_key_types"]?.arrayValue,
           !unused.contains(.string(MatrixDeviceKeys.oneTimeKeyAlgorithm)), try device.account.unpublishedFallbackKey().isEmpty {
            try device.account.generateFallbackKey()
            changed = true
        }
        guard changed else { return }
        try await store.storeAccount(device.account, userID: device.userID, deviceID: device.deviceID)
        try await device.keys.publish(through: client, includeDeviceKeys: false)
        try await store.storeAccount(device.account, userID: device.userID, deviceID: device.deviceID)
    }

    /// A member left `room`: its outbound session is retired, the next message starts another.
    public func membersLeft(room: String) async {
        outbound[room] = nil
        do { try await store.discardOutboundGroupSession(roomID: room) } catch {
            log("retiring the Megolm session of \(room) failed: \(error)")
        }
    }
}
