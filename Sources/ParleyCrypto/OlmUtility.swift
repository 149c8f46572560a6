/// Checks that need no account: ed25519 signatures (another device's signed keys) and
/// SHA-256 (the Matrix key-verification commitments).
public enum OlmUtility {
    /// True when `signature` (base64) is the ed25519 signature of `message` by `key` (base64);
    /// false when it is not. Throws when the key or signature is not well-formed.
    public static func verifyEd25519(key: String, message: String, signature: String) throws -> Bool {
        try ParleyCrypto.backend.verifyEd25519(key: key, message: Array(message.utf8), signature: signature)
    }

    /// SHA-256 of `input`'s UTF-8 bytes, unpadded base64.
    public static func sha256(_ input: String) throws -> String {
        try ParleyCrypto.backend.sha256(Array(input.utf8))
    }
}
