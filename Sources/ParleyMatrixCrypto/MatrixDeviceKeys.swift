import ParleyCore
import ParleyCrypto
import ParleyMatrix

/// This device's keys as the homeserver holds them: the signed `device_keys` object, signed
/// one-time keys and a signed fallback key, uploaded with `/keys/upload`.
///
/// Keys are marked published in the account only after the server accepted the upload; an
/// upload whose answer was lost is simply repeated (the same key ids with the same signed
/// objects — ed25519 signatures are deterministic — which the server accepts again). The
/// caller pickles the account after ``publish(through:includeDeviceKeys:)`` and
/// ``replenish(serverCount:through:)``: that is where its state changes.
public struct MatrixDeviceKeys: Sendable {
    /// The algorithms this device announces: Olm for to-device messages, Megolm for rooms.
    public static let algorithms = ["m.olm.v1.curve25519-aes-sha2", "m.megolm.v1.aes-sha2"]
    /// The algorithm of signed one-time and fallback keys.
    public static let oneTimeKeyAlgorithm = "signed_curve25519"

    public let account: OlmAccount
    public let userID: String
    public let deviceID: String

    public init(account: OlmAccount, userID: String, deviceID: String) {
        self.account = account
        self.userID = userID
        self.deviceID = deviceID
    }

    /// The signed `device_keys` object.
    public func deviceKeys() throws -> [String: JSONValue] {
        let object: [String: JSONValue] = [
            "user_id": .string(userID),
            "device_id": .string(deviceID),
            "algorithms": .array(Self.algorithms.map { .string($0) }),
            "keys": [
                "curve25519:\(deviceID)": .string(account.identityKeys.curve25519),
                "ed25519:\(deviceID)": .string(account.identityKeys.ed25519),
            ],
        ]
        return try MatrixSigning.sign(object, account: account, userID: userID, deviceID: deviceID)
    }

    /// The unpublished one-time keys, signed: `signed_curve25519:<key id>` → `{key, signatures}`.
    public func signedOneTimeKeys() throws -> [String: JSONValue] {
        try signed(account.oneTimeKeys(), fallback: false)
    }

    /// The unpublished fallback key, signed, with `fallback: true` (empty when there is none).
    public func signedFallbackKeys() throws -> [String: JSONValue] {
        try signed(account.unpublishedFallbackKey(), fallback: true)
    }

    private func signed(_ keys: [String: String], fallback: Bool) throws -> [String: JSONValue] {
        var objects: [String: JSONValue] = [:]
        for (id, key) in keys {
            var object: [String: JSONValue] = ["key": .string(key)]
            if fallback { object["fallback"] = true }
            objects["\(Self.oneTimeKeyAlgorithm):\(id)"] = .object(try MatrixSigning.sign(object, account: account, userID: userID,
                                                                                            deviceID: deviceID))
        }
        return objects
    }

    /// Uploads the device keys (with `includeDeviceKeys`; once is enough) and every unpublished
    /// one-time and fallback key, then marks them published. Returns the server's
    /// `one_time_key_counts`. If the upload fails nothing is marked: the next call sends the
    /// same keys again.
    @discardableResult
    public func publish(through client: MatrixClient, includeDeviceKeys: Bool) async throws -> [String: Int] {
        let oneTimeKeys = try signedOneTimeKeys()
        let fallbackKeys = try signedFallbackKeys()
        let counts = try await client.uploadKeys(deviceKeys: includeDeviceKeys ? .object(deviceKeys()) : nil,
                                                 oneTimeKeys: oneTimeKeys, fallbackKeys: fallbackKeys)
        try account.markKeysAsPublished()
        return counts
    }

    /// How many one-time keys to generate so the server holds half of what the account can
    /// keep (`maxOneTimeKeys`), given the server's count (`device_one_time_keys_count.
    /// signed_curve25519` from `/sync`) and the keys generated but not yet published (they
    /// go up with the next upload). Never negative; a count above the target asks for none.
    public static func oneTimeKeysToGenerate(serverCount: Int, unpublished: Int, maxOneTimeKeys: Int) -> Int {
        max(0, maxOneTimeKeys / 2 - max(0, serverCount) - max(0, unpublished))
    }

    /// Tops the server's one-time keys up to half the account's maximum (see
    /// ``oneTimeKeysToGenerate(serverCount:unpublished:maxOneTimeKeys:)``) and uploads them,
    /// with any left unpublished before. Returns the server's counts, or nil when nothing
    /// needed uploading.
    @discardableResult
    public func replenish(serverCount: Int, through client: MatrixClient) async throws -> [String: Int]? {
        let unpublished = try account.oneTimeKeys().count
        let count = Self.oneTimeKeysToGenerate(serverCount: serverCount, unpublished: unpublished,
                                               maxOneTimeKeys: account.maxNumberOfOneTimeKeys)
        guard count + unpublished > 0 else { return nil }
        try account.generateOneTimeKeys(count: count)
        return try await publish(through: client, includeDeviceKeys: false)
    }
}
