import Testing
import ParleyCrypto

/// Everything stored survives a pickle round trip and keeps working; the wrong key is a
/// clear error, never a half-loaded object.
@Suite struct PickleTests {
    static let key = PickleKey("correct horse battery staple")
    static let wrongKey = PickleKey("incorrect horse")

    @Test func anAccountRoundTripsAndKeepsItsKeys() throws {
        let account = try OlmAccount()
        try account.generateOneTimeKeys(count: 3)
        let restored = try OlmAccount(pickle: try account.pickle(key: Self.key), key: Self.key)
        #expect(restored.identityKeys == account.identityKeys)
        #expect(try restored.oneTimeKeys() == (try account.oneTimeKeys()))
        // Its signing key is the same one.
        let signature = try restored.sign("hello")
        #expect(try OlmUtility.verifyEd25519(key: account.identityKeys.ed25519, message: "hello", signature: signature))
    }

    @Test func anOlmSessionRoundTripsAndKeepsTalking() throws {
        let alice = try OlmAccount()
        let bob = try OlmAccount()
        try bob.generateOneTimeKeys(count: 1)
        let aliceSession = try OlmSession(outboundFrom: alice, theirIdentityKey: bob.identityKeys.curve25519,
                                          theirOneTimeKey: try #require(try bob.oneTimeKeys().values.first))
        let first = try aliceSession.encrypt("first")
        let bobSession = try OlmSession(inboundFrom: bob, message: first)
        try bob.removeOneTimeKeys(usedBy: bobSession)
        #expect(try bobSession.decrypt(first) == "first")

        let restoredBob = try OlmSession(pickle: try bobSession.pickle(key: Self.key), key: Self.key)
        #expect(restoredBob.sessionID == bobSession.sessionID)
        #expect(try aliceSession.decrypt(try restoredBob.encrypt("from the restored session")) == "from the restored session")
        #expect(try restoredBob.decrypt(try aliceSession.encrypt("to the restored session")) == "to the restored session")

        // The restored account still knows the key is used.
        let restoredAccount = try OlmAccount(pickle: try bob.pickle(key: Self.key), key: Self.key)
        #expect(throws: OlmError.self) { try OlmSession(inboundFrom: restoredAccount, message: first) }
    }

    @Test func megolmSessionsRoundTripAndKeepWorking() throws {
        let outbound = try MegolmOutboundSession()
        let inbound = try MegolmInboundSession(sessionKey: try outbound.sessionKey())
        #expect(try inbound.decrypt(try outbound.encrypt("zero")).messageIndex == 0)

        let restoredOutbound = try MegolmOutboundSession(pickle: try outbound.pickle(key: Self.key), key: Self.key)
        #expect(restoredOutbound.sessionID == outbound.sessionID)
        #expect(restoredOutbound.messageIndex == 1)
        let restoredInbound = try MegolmInboundSession(pickle: try inbound.pickle(key: Self.key), key: Self.key)
        #expect(restoredInbound.sessionID == inbound.sessionID)

        // Encrypt with the restored one, decrypt with the other side, both ways round.
        #expect(try inbound.decrypt(try restoredOutbound.encrypt("one")) == MegolmDecrypted(plaintext: "one", messageIndex: 1))
        #expect(try restoredInbound.decrypt(try outbound.encrypt("one again")).plaintext == "one again")
    }

    @Test func theWrongKeyIsAClearError() throws {
        let account = try OlmAccount()
        try account.generateOneTimeKeys(count: 1)
        let outbound = try MegolmOutboundSession()
        let inbound = try MegolmInboundSession(sessionKey: try outbound.sessionKey())
        let bob = try OlmAccount()
        let session = try OlmSession(outboundFrom: account, theirIdentityKey: bob.identityKeys.curve25519,
                                     theirOneTimeKey: try #require(try account.oneTimeKeys().values.first))

        let attempts: [() throws -> Void] = [
            { _ = try OlmAccount(pickle: try account.pickle(key: Self.key), key: Self.wrongKey) },
            { _ = try OlmSession(pickle: try session.pickle(key: Self.key), key: Self.wrongKey) },
            { _ = try MegolmOutboundSession(pickle: try outbound.pickle(key: Self.key), key: Self.wrongKey) },
            { _ = try MegolmInboundSession(pickle: try inbound.pickle(key: Self.key), key: Self.wrongKey) },
        ]
        for attempt in attempts {
            let error = try #require(throws: OlmError.self) { try attempt() }
            #expect(error.code == .wrongPickleKey)
            #expect(error.description.contains("unpickle"))
            #expect(error.description.contains("the pickle key is wrong"))
        }
    }

    @Test func aPickleIsNotTheKeysInClear() throws {
        let account = try OlmAccount()
        let pickle = try account.pickle(key: Self.key)
        #expect(!pickle.contains(account.identityKeys.curve25519))
        #expect(!pickle.contains(account.identityKeys.ed25519))
        let error = #expect(throws: OlmError.self) { try OlmAccount(pickle: "garbage", key: Self.key) }
        #expect(error != nil)
    }
}
