import ParleyCore
import ParleyCrypto

/// Signing JSON the Matrix way (the spec's "Signing JSON"): the signature is over the
/// object's canonical JSON without `signatures` and `unsigned`, and is added under
/// `signatures.<user id>."ed25519:<device id>"` next to any signatures already there.
public enum MatrixSigning {
    /// The bytes signed for `object`: its canonical JSON without `signatures` and `unsigned`.
    public static func signedText(_ object: [String: JSONValue]) throws(CanonicalJSONError) -> String {
        var stripped = object
        stripped["signatures"] = nil
        stripped["unsigned"] = nil
        return try JSONValue.object(stripped).canonicalJSON()
    }

    /// `object` with this device's signature added (`userID`, `ed25519:<deviceID>`).
    public static func sign(_ object: [String: JSONValue], account: OlmAccount, userID: String,
                            deviceID: String) throws -> [String: JSONValue] {
        try sign(object, userID: userID, keyName: deviceID, with: account.sign)
    }

    /// `object` with a cross-signing key's signature added (`ed25519:<its public key>`).
    public static func sign(_ object: [String: JSONValue], with key: SigningKey, userID: String) throws -> [String: JSONValue] {
        try sign(object, userID: userID, keyName: key.publicKey, with: key.sign)
    }

    private static func sign(_ object: [String: JSONValue], userID: String, keyName: String,
                             with signer: (String) throws -> String) throws -> [String: JSONValue] {
        let signature = try signer(signedText(object))
        var signed = object
        var signatures = object["signatures"]?.objectValue ?? [:]
        var mine = signatures[userID]?.objectValue ?? [:]
        mine["ed25519:\(keyName)"] = .string(signature)
        signatures[userID] = .object(mine)
        signed["signatures"] = .object(signatures)
        return signed
    }

    /// True when `object` carries a valid signature by `userID`'s key `ed25519:<keyName>`
    /// with public key `ed25519Key` (base64). False for a missing signature, a wrong or
    /// malformed one, a malformed key, or an object with no canonical form: whatever fails
    /// to verify is not trusted.
    public static func verify(_ object: [String: JSONValue], userID: String, keyName: String, ed25519Key: String) -> Bool {
        guard let signature = object["signatures"]?[userID]?["ed25519:\(keyName)"]?.stringValue,
              let text = try? signedText(object)
        else { return false }
        return (try? OlmUtility.verifyEd25519(key: ed25519Key, message: text, signature: signature)) == true
    }
}
