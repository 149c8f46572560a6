import Foundation
import Testing
@testable import ParleyCrypto

/// Encrypted attachments: AES-256-CTR and SHA-256 against published vectors, a round trip with
/// fresh keys, and a tampered file refused before decrypting.
@Suite struct AttachmentCipherTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    /// NIST SP 800-38A, F.5.5 (CTR-AES256.Encrypt), its first two blocks.
    @Test func aes256CTRMatchesTheNISTVector() throws {
        let key = Self.bytes("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
        let counter = Self.bytes("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        let plaintext = Data(Self.bytes("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"))
        let ciphertext = try AttachmentCipher.crypt(plaintext, key: key, iv: counter)
        #expect(ciphertext == Data(Self.bytes("601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5")))
        #expect(try AttachmentCipher.crypt(ciphertext, key: key, iv: counter) == plaintext)
    }

    /// FIPS 180-2's "abc".
    @Test func sha256MatchesTheFIPSVector() throws {
        #expect(try AttachmentCipher.sha256(Data("abc".utf8))
            == Data(Self.bytes("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")))
    }

    @Test func aFileRoundTripsAndATamperedOneIsRefused() throws {
        let file = Data("BEGIN:VCARD\r\nFN:Bob Stone\r\nEND:VCARD\r\n".utf8)
        let sealed = try AttachmentCipher.encrypt(file)
        #expect(sealed.ciphertext.count == file.count && sealed.ciphertext != file)
        #expect(sealed.key.count == 32 && sealed.iv.count == 16 && sealed.iv.suffix(8) == Data(count: 8))
        #expect(try AttachmentCipher.decrypt(sealed.ciphertext, key: sealed.key, iv: sealed.iv, sha256: sealed.sha256) == file)
        #expect(try AttachmentCipher.encrypt(file).key != sealed.key)
        var tampered = sealed.ciphertext
        tampered[0] ^= 1
        #expect(throws: OlmError.self) { try AttachmentCipher.decrypt(tampered, key: sealed.key, iv: sealed.iv, sha256: sealed.sha256) }
        #expect(throws: OlmError.self) { try AttachmentCipher.decrypt(sealed.ciphertext, key: sealed.key.prefix(16), iv: sealed.iv, sha256: sealed.sha256) }
    }
}
