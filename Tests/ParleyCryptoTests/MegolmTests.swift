import Testing
import ParleyCrypto

@Suite struct MegolmTests {
    @Test func inboundFromTheSharedKeyDecryptsInOrderWithIndices() throws {
        let outbound = try MegolmOutboundSession()
        #expect(outbound.messageIndex == 0)
        let inbound = try MegolmInboundSession(sessionKey: try outbound.sessionKey())
        #expect(inbound.sessionID == outbound.sessionID)
        #expect(inbound.firstKnownIndex == 0)

        let ciphertexts = try ["one", "two", "three"].map { try outbound.encrypt($0) }
        #expect(outbound.messageIndex == 3)
        let decrypted = try ciphertexts.map { try inbound.decrypt($0) }
        #expect(decrypted.map(\.plaintext) == ["one", "two", "three"])
        #expect(decrypted.map(\.messageIndex) == [0, 1, 2])
    }

    @Test func anImportAtIndexTwoCannotReadEarlierMessages() throws {
        let outbound = try MegolmOutboundSession()
        let inbound = try MegolmInboundSession(sessionKey: try outbound.sessionKey())
        let ciphertexts = try ["zero", "one", "two"].map { try outbound.encrypt($0) }

        let imported = try MegolmInboundSession(importing: try inbound.export(at: 2))
        #expect(imported.sessionID == outbound.sessionID)
        #expect(imported.firstKnownIndex == 2)
        #expect(try imported.decrypt(ciphertexts[2]) == MegolmDecrypted(plaintext: "two", messageIndex: 2))
        let error = try #require(throws: OlmError.self) { try imported.decrypt(ciphertexts[0]) }
        #expect(error.code == .unknownMessageIndex)
        // Nor can it export what it never had.
        #expect(throws: OlmError.self) { try imported.export(at: 0) }
    }

    @Test func aKeySharedLaterCannotReadEarlierMessages() throws {
        let outbound = try MegolmOutboundSession()
        let early = try outbound.encrypt("before you joined")
        let late = try MegolmInboundSession(sessionKey: try outbound.sessionKey())
        #expect(late.firstKnownIndex == 1)
        #expect(throws: OlmError.self) { try late.decrypt(early) }
        #expect(try late.decrypt(try outbound.encrypt("after")).plaintext == "after")
    }

    @Test func tamperedCiphertextIsRefused() throws {
        let outbound = try MegolmOutboundSession()
        let inbound = try MegolmInboundSession(sessionKey: try outbound.sessionKey())
        let ciphertext = try outbound.encrypt("the refund is approved")
        let error = try #require(throws: OlmError.self) {
            try inbound.decrypt(Tampering.flipOneCharacter(in: ciphertext))
        }
        #expect([.badMessageMAC, .badSignature, .badMessageFormat, .invalidBase64].contains(error.code))
        #expect(throws: OlmError.self) { try inbound.decrypt("not a megolm message") }
        #expect(try inbound.decrypt(ciphertext).plaintext == "the refund is approved")
    }

    @Test func aMalformedSessionKeyIsAnError() {
        let error = #expect(throws: OlmError.self) { try MegolmInboundSession(sessionKey: "AAAA") }
        #expect(error?.code == .badSessionKey || error?.code == .invalidBase64)
    }
}
