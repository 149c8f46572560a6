import ParleyCore
import ParleyCrypto
import ParleyMatrix

/// Cross-signing: the account's master key signs its self-signing and user-signing keys, and
/// the self-signing key signs the bot's device, so clients (Element, matrix-nio) show the
/// bot's device as verified by its owner. The keys are made and uploaded once; a new device
/// (a lost session) is signed again. The private parts are stored pickled only.
extension MatrixE2EE {
    func crossSign(_ device: Device, client: MatrixClient, password: String?) async throws {
        let keys: CrossSigningKeys
        if let stored = try await store.crossSigningKeys() {
            keys = stored
        } else {
            keys = try .generate()
            try await store.storeCrossSigningKeys(keys)
        }
        if try await store.state("cross_signing_uploaded") != keys.master.publicKey {
            try await client.uploadCrossSigningKeys(try Self.crossSigningObjects(keys, userID: device.userID), userID: device.userID,
                                                    password: password)
            try await store.setState("cross_signing_uploaded", keys.master.publicKey)
        }
        let signedDevice = "\(device.deviceID) \(keys.selfSigning.publicKey)"
        guard try await store.state("device_signed") != signedDevice else { return }
        try await sign(try device.keys.deviceKeys(), of: device.deviceID, with: keys, userID: device.userID, client: client)
        try await store.setState("device_signed", signedDevice)
    }

    /// Signs another device of the bot's account with its self-signing key (held here): that
    /// device is then the bot's own to every client, and this one answers its key requests.
    /// For an operator who runs the bot on a second device (a login of their own, a second
    /// process). Throws `notFound` if the server lists no such device with valid keys, and
    /// `permissionDenied` if this device holds no cross-signing keys.
    public func signOwnDevice(_ deviceID: String, client: MatrixClient) async throws {
        let device = try started()
        guard let keys = try await store.crossSigningKeys() else {
            throw ParleyError(.permissionDenied, "this device holds no cross-signing keys to sign device \(deviceID) with")
        }
        guard var object = try await ownDevice(deviceID, of: device, client: client)?.object else {
            throw ParleyError(.notFound, "\(device.userID) has no device \(deviceID) with valid keys")
        }
        // Only the signed fields: the server's additions (`unsigned`) and other signatures go.
        object["unsigned"] = nil
        object["signatures"] = nil
        try await sign(object, of: deviceID, with: keys, userID: device.userID, client: client)
    }

    private func sign(_ deviceKeys: [String: JSONValue], of deviceID: String, with keys: CrossSigningKeys, userID: String,
                      client: MatrixClient) async throws {
        let signed = try MatrixSigning.sign(deviceKeys, with: keys.selfSigning, userID: userID)
        let failures = try await client.uploadSignatures([userID: [deviceID: .object(signed)]])
        guard failures.objectValue?.isEmpty ?? true else {
            throw ParleyError(.serverError, "the homeserver refused the signature of device \(deviceID): \(failures.jsonString())")
        }
    }

    /// The `/keys/device_signing/upload` body: the master key, and the two keys it signs.
    static func crossSigningObjects(_ keys: CrossSigningKeys, userID: String) throws -> [String: JSONValue] {
        func object(_ key: SigningKey, usage: String) -> [String: JSONValue] {
            ["user_id": .string(userID), "usage": [.string(usage)], "keys": ["ed25519:\(key.publicKey)": .string(key.publicKey)]]
        }
        return [
            "master_key": .object(object(keys.master, usage: "master")),
            "self_signing_key": .object(try MatrixSigning.sign(object(keys.selfSigning, usage: "self_signing"), with: keys.master,
                                                               userID: userID)),
            "user_signing_key": .object(try MatrixSigning.sign(object(keys.userSigning, usage: "user_signing"), with: keys.master,
                                                               userID: userID)),
        ]
    }

    /// Own device `deviceID` as `/keys/query` lists it now, if its keys and self-signature are
    /// valid: the device, and the listed object (for a signature to add or check).
    func ownDevice(_ deviceID: String, of device: Device, client: MatrixClient) async throws
        -> (device: MatrixDevice, object: [String: JSONValue])? {
        let listed = try await client.queryKeys(users: [device.userID])["device_keys"]?[device.userID]?[deviceID]
        guard let listed, case .success(let found) = MatrixKeyDirectory.device(listed, userID: device.userID, deviceID: deviceID),
              let object = listed.objectValue
        else { return nil }
        return (found, object)
    }
}
