import Testing
import ParleyCrypto

@Suite struct AccountTests {
    @Test func identityKeysAreBase64OfTheRightLength() throws {
        let account = try OlmAccount()
        // 32-byte keys in unpadded base64.
        #expect(account.identityKeys.curve25519.count == 43)
        #expect(account.identityKeys.ed25519.count == 43)
        #expect(account.identityKeys != (try OlmAccount()).identityKeys)
    }

    @Test func oneTimeKeysAreListedUntilPublished() throws {
        let account = try OlmAccount()
        #expect(account.maxNumberOfOneTimeKeys >= 50)
        #expect(try account.oneTimeKeys().isEmpty)
        try account.generateOneTimeKeys(count: 5)
        let keys = try account.oneTimeKeys()
        #expect(keys.count == 5)
        #expect(Set(keys.values).count == 5)
        try account.markKeysAsPublished()
        #expect(try account.oneTimeKeys().isEmpty)
        #expect(throws: OlmError.self) { try account.generateOneTimeKeys(count: -1) }
    }

    @Test func aFallbackKeyIsListedUntilPublishedAndCanStartASession() throws {
        let bob = try OlmAccount()
        #expect(try bob.unpublishedFallbackKey().isEmpty)
        try bob.generateFallbackKey()
        let fallback = try bob.unpublishedFallbackKey()
        #expect(fallback.count == 1)
        try bob.markKeysAsPublished()
        #expect(try bob.unpublishedFallbackKey().isEmpty)

        // A device out of one-time keys is still reachable through its fallback key.
        let alice = try OlmAccount()
        let aliceSession = try OlmSession(outboundFrom: alice, theirIdentityKey: bob.identityKeys.curve25519,
                                          theirOneTimeKey: try #require(fallback.values.first))
        let message = try aliceSession.encrypt("via the fallback key")
        let bobSession = try OlmSession(inboundFrom: bob, message: message)
        #expect(try bobSession.decrypt(message) == "via the fallback key")
        bob.forgetOldFallbackKey()
    }

    @Test func signaturesVerifyAndAModifiedMessageDoesNot() throws {
        let account = try OlmAccount()
        let message = #"{"algorithms":["m.olm.v1.curve25519-aes-sha2"],"device_id":"PARLEY"}"#
        let signature = try account.sign(message)
        let key = account.identityKeys.ed25519
        #expect(try OlmUtility.verifyEd25519(key: key, message: message, signature: signature))
        #expect(try OlmUtility.verifyEd25519(key: key, message: message + " ", signature: signature) == false)
        let otherKey = try OlmAccount().identityKeys.ed25519
        #expect(try OlmUtility.verifyEd25519(key: otherKey, message: message, signature: signature) == false)
        #expect(throws: OlmError.self) { try OlmUtility.verifyEd25519(key: "short", message: message, signature: signature) }
    }

    @Test func sha256IsUnpaddedBase64() throws {
        // SHA-256("") = e3b0c442...b855, in unpadded base64.
        #expect(try OlmUtility.sha256("") == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU")
    }

    @Test func theLibraryVersionIsNamed() {
        #expect(ParleyCrypto.libraryVersion.hasPrefix("libolm 3."))
    }
}
