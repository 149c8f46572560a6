import ParleyCrypto
import Testing

/// Cross-signing keys: ed25519 signatures anyone can verify, and a pickle that brings back the
/// same key under the right pickle key only.
@Suite struct SigningKeyTests {
    @Test func signaturesVerifyAgainstThePublicKey() throws {
        let key = try SigningKey()
        let signature = try key.sign("{\"a\":1}")
        #expect(try OlmUtility.verifyEd25519(key: key.publicKey, message: "{\"a\":1}", signature: signature))
        #expect(try !OlmUtility.verifyEd25519(key: key.publicKey, message: "{\"a\":2}", signature: signature))
        #expect(try SigningKey().publicKey != key.publicKey)
    }

    @Test func aPickleRestoresTheSameKey() throws {
        let key = try SigningKey()
        let pickle = try key.pickle(key: PickleKey("the pickle key"))
        let restored = try SigningKey(pickle: pickle, key: PickleKey("the pickle key"))
        #expect(restored.publicKey == key.publicKey)
        // ed25519 signatures are deterministic: the same private key signs the same way.
        #expect(try restored.sign("message") == key.sign("message"))
        #expect(!pickle.contains(key.publicKey))
    }

    @Test func aWrongPickleKeyIsAClearError() throws {
        let pickle = try SigningKey().pickle(key: PickleKey("right"))
        let error = #expect(throws: OlmError.self) { try SigningKey(pickle: pickle, key: PickleKey("wrong")) }
        #expect(error?.code == .wrongPickleKey)
    }
}
