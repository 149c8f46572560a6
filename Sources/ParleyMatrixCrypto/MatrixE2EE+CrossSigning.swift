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
        let deviceKeys = try MatrixSigning.sign(try device.keys.deviceKeys(), with: keys.selfSigning, userID: device.userID)
        let failures = try await client.uploadSignatures([device.userID: [device.deviceID: .object(deviceKeys)]])
        guard failures.objectValue?.isEmpty ?? true else {
            throw ParleyError(.serverError, "the homeserver refused the signature of device \(device.deviceID): \(failures.jsonString())")
        }
        try await store.setState("device_signed", signedDevice)
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
}
