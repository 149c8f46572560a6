import Testing
import ParleyCrypto

/// Two devices establish an Olm session the way Matrix does it: Bob publishes one-time keys,
/// Alice claims one and sends a pre-key message, Bob creates the inbound session from it and
/// removes the used key, then they talk both ways.
@Suite struct OlmSessionTests {
    /// Bob's account with one published one-time key, and that key.
    static func bobWithOneTimeKey() throws -> (account: OlmAccount, oneTimeKey: String) {
        let bob = try OlmAccount()
        try bob.generateOneTimeKeys(count: 1)
        let keys = try bob.oneTimeKeys()
        #expect(keys.count == 1)
        try bob.markKeysAsPublished()
        #expect(try bob.oneTimeKeys().isEmpty)
        return (bob, try #require(keys.values.first))
    }

    @Test func twoAccountsExchangeMessagesBothWays() throws {
        let alice = try OlmAccount()
        let (bob, oneTimeKey) = try Self.bobWithOneTimeKey()

        let aliceSession = try OlmSession(outboundFrom: alice, theirIdentityKey: bob.identityKeys.curve25519,
                                          theirOneTimeKey: oneTimeKey)
        let first = try aliceSession.encrypt("hello Bob")
        #expect(first.kind == .preKey)

        let bobSession = try OlmSession(inboundFrom: bob, message: first, theirIdentityKey: alice.identityKeys.curve25519)
        try bob.removeOneTimeKeys(usedBy: bobSession)
        #expect(bobSession.sessionID == aliceSession.sessionID)
        #expect(try bobSession.matchesInbound(first, theirIdentityKey: alice.identityKeys.curve25519))
        #expect(try bobSession.decrypt(first) == "hello Bob")

        let reply = try bobSession.encrypt("hello Alice")
        #expect(reply.kind == .normal)
        #expect(try aliceSession.decrypt(reply) == "hello Alice")
        #expect(aliceSession.hasReceivedMessage)

        // Alice has heard back, so she now sends normal messages.
        let second = try aliceSession.encrypt("how are you?")
        #expect(second.kind == .normal)
        #expect(try bobSession.decrypt(second) == "how are you?")
    }

    @Test func aUsedOneTimeKeyCannotStartASecondSession() throws {
        let alice = try OlmAccount()
        let (bob, oneTimeKey) = try Self.bobWithOneTimeKey()
        let aliceSession = try OlmSession(outboundFrom: alice, theirIdentityKey: bob.identityKeys.curve25519,
                                          theirOneTimeKey: oneTimeKey)
        let first = try aliceSession.encrypt("once")
        let bobSession = try OlmSession(inboundFrom: bob, message: first)
        try bob.removeOneTimeKeys(usedBy: bobSession)

        // The replayed pre-key message names a key Bob no longer has.
        let error = try #require(throws: OlmError.self) { try OlmSession(inboundFrom: bob, message: first) }
        #expect(error.code == .badMessageKeyID)
        #expect(error.description.contains("create inbound Olm session"))
        // And removing it twice is an error too, not a silent no-op.
        #expect(throws: OlmError.self) { try bob.removeOneTimeKeys(usedBy: bobSession) }
    }

    @Test func aSessionDoesNotMatchAnotherSessionsPreKeyMessage() throws {
        let alice = try OlmAccount()
        let (bob, oneTimeKey) = try Self.bobWithOneTimeKey()
        let aliceSession = try OlmSession(outboundFrom: alice, theirIdentityKey: bob.identityKeys.curve25519,
                                          theirOneTimeKey: oneTimeKey)
        let bobSession = try OlmSession(inboundFrom: bob, message: try aliceSession.encrypt("one"))

        let carol = try OlmAccount()
        try bob.generateOneTimeKeys(count: 1)
        let otherKey = try #require(try bob.oneTimeKeys().values.first)
        let carolSession = try OlmSession(outboundFrom: carol, theirIdentityKey: bob.identityKeys.curve25519,
                                          theirOneTimeKey: otherKey)
        #expect(try bobSession.matchesInbound(try carolSession.encrypt("two")) == false)
    }

    @Test func aTamperedMessageIsRefused() throws {
        let alice = try OlmAccount()
        let (bob, oneTimeKey) = try Self.bobWithOneTimeKey()
        let aliceSession = try OlmSession(outboundFrom: alice, theirIdentityKey: bob.identityKeys.curve25519,
                                          theirOneTimeKey: oneTimeKey)
        let first = try aliceSession.encrypt("first")
        let bobSession = try OlmSession(inboundFrom: bob, message: first)
        #expect(try bobSession.decrypt(first) == "first")

        let reply = try bobSession.encrypt("a reply")
        let tampered = OlmMessage(kind: .normal, body: Tampering.flipOneCharacter(in: reply.body))
        let error = try #require(throws: OlmError.self) { try aliceSession.decrypt(tampered) }
        #expect([.badMessageMAC, .badMessageFormat, .invalidBase64].contains(error.code))
        // The session is unharmed: the genuine message still decrypts.
        #expect(try aliceSession.decrypt(reply) == "a reply")
    }

    @Test func anOutboundSessionFromAMalformedKeyIsAnError() throws {
        let alice = try OlmAccount()
        let error = try #require(throws: OlmError.self) {
            try OlmSession(outboundFrom: alice, theirIdentityKey: "not base64!", theirOneTimeKey: "nor this")
        }
        #expect(error.code == .invalidBase64)
    }
}

/// Changes of a ciphertext that keep it valid base64 but not what was sent.
enum Tampering {
    /// Replaces one character in the middle with another base64 character.
    static func flipOneCharacter(in body: String) -> String {
        var characters = Array(body)
        let middle = characters.count / 2
        characters[middle] = characters[middle] == "A" ? "B" : "A"
        return String(characters)
    }
}
