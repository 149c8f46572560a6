internal import COpenSSL
import Foundation

/// A file encrypted for an encrypted room (Matrix's `EncryptedFile`, version 2): AES-256-CTR
/// under a fresh random key and IV, and the SHA-256 of the ciphertext, which the reader checks
/// before decrypting. The homeserver stores only the ciphertext; the key travels inside the
/// Megolm-encrypted event.
public struct EncryptedAttachment: Sendable, Equatable {
    public let ciphertext: Data
    /// The AES-256 key (32 bytes).
    public let key: Data
    /// The counter block's start (16 bytes, the low 8 zero, as the spec asks, so the counter
    /// cannot wrap into the random half).
    public let iv: Data
    /// SHA-256 of `ciphertext`.
    public let sha256: Data
}

/// AES-256-CTR and SHA-256 through OpenSSL's libcrypto (libolm offers neither publicly). No
/// cryptography is written here: these are calls to EVP with every return code checked.
public enum AttachmentCipher {
    /// Encrypts `plaintext` under a new random key and IV.
    /// - Throws: `OlmError(.notEnoughRandom)` if the random source fails, `.unexpectedOutput`
    ///   if OpenSSL refuses.
    public static func encrypt(_ plaintext: Data) throws -> EncryptedAttachment {
        var key = [UInt8](repeating: 0, count: 32)
        var iv = [UInt8](repeating: 0, count: 16)
        defer { Secrets.wipe(&key) }
        guard RAND_bytes(&key, 32) == 1, RAND_bytes(&iv, 8) == 1 else {
            throw OlmError(operation: "draw an attachment key", code: .notEnoughRandom)
        }
        let ciphertext = try crypt(plaintext, key: key, iv: iv, operation: "encrypt an attachment")
        return EncryptedAttachment(ciphertext: ciphertext, key: Data(key), iv: Data(iv), sha256: try sha256(ciphertext))
    }

    /// Decrypts an attachment after checking its hash.
    /// - Throws: `OlmError(.badMessageMAC)` when the ciphertext's SHA-256 is not `sha256`
    ///   (tampered or truncated), `.invalidArgument` for a key or IV of the wrong size.
    public static func decrypt(_ ciphertext: Data, key: Data, iv: Data, sha256 expected: Data) throws -> Data {
        guard key.count == 32, iv.count == 16 else { throw OlmError(operation: "decrypt an attachment", code: .invalidArgument) }
        guard try sha256(ciphertext) == expected else { throw OlmError(operation: "check an attachment's hash", code: .badMessageMAC) }
        return try crypt(ciphertext, key: [UInt8](key), iv: [UInt8](iv), operation: "decrypt an attachment")
    }

    /// SHA-256 of `data`.
    public static func sha256(_ data: Data) throws -> Data {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil) }
        guard ok == 1, length == 32 else { throw OlmError(operation: "hash an attachment", code: .unexpectedOutput) }
        return Data(digest.prefix(32))
    }

    /// CTR mode is its own inverse: the same call encrypts and decrypts.
    static func crypt(_ input: Data, key: [UInt8], iv: [UInt8], operation: String = "AES-256-CTR") throws -> Data {
        guard !input.isEmpty else { return Data() }
        guard let context = EVP_CIPHER_CTX_new() else { throw OlmError(operation: operation, code: .unexpectedOutput) }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_256_ctr(), nil, key, iv) == 1 else {
            throw OlmError(operation: operation, code: .unexpectedOutput)
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        var final: Int32 = 0
        let ok = input.withUnsafeBytes { bytes in
            output.withUnsafeMutableBufferPointer { out in
                guard EVP_EncryptUpdate(context, out.baseAddress, &written, bytes.bindMemory(to: UInt8.self).baseAddress,
                                        Int32(bytes.count)) == 1 else { return false }
                return EVP_EncryptFinal_ex(context, out.baseAddress! + Int(written), &final) == 1
            }
        }
        guard ok, Int(written + final) == input.count else { throw OlmError(operation: operation, code: .unexpectedOutput) }
        return Data(output.prefix(input.count))
    }
}
