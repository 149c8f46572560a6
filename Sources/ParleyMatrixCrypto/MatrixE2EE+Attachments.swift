import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrix

/// Encrypted attachments (the spec's `EncryptedFile`, `v2`): the file is encrypted with its
/// own key, which travels in the Megolm-encrypted event beside the upload's URL.
extension MatrixE2EE {
    public nonisolated func encryptAttachment(_ data: Data) throws -> (ciphertext: Data, file: [String: JSONValue]) {
        let sealed = try AttachmentCipher.encrypt(data)
        let file: [String: JSONValue] = [
            "v": "v2",
            "key": ["kty": "oct", "key_ops": ["encrypt", "decrypt"], "alg": "A256CTR", "ext": true,
                    "k": .string(Self.unpaddedBase64(sealed.key, urlSafe: true))],
            "iv": .string(Self.unpaddedBase64(sealed.iv, urlSafe: false)),
            "hashes": ["sha256": .string(Self.unpaddedBase64(sealed.sha256, urlSafe: false))],
        ]
        return (sealed.ciphertext, file)
    }

    /// Matrix's unpadded base64; the JWK's key is base64url (RFC 7518).
    static func unpaddedBase64(_ data: Data, urlSafe: Bool) -> String {
        var text = data.base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return urlSafe ? text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_") : text
    }
}
