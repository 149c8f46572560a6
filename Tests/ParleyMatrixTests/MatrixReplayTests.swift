import Foundation
import ParleyCore
import ParleyTesting
import ParleyCrypto
import ParleyMatrixCrypto
import Testing
@testable import ParleyMatrix

/// A Megolm message index opens one event only: the same ciphertext under another event id is
/// a replay (a homeserver resending an old command), refused after a restart too — the index
/// is in the crypto store, not only in memory.
@Suite struct MatrixReplayTests {
    @Test(arguments: TestDatabase.kinds)
    func aReplayIsRefusedAfterARestart(database: TestDatabase) async throws {
        let path = database.location("crypto")
        let pickleKey = PickleKey("a-test-pickle-key-0123456789")
        let outbound = try MegolmOutboundSession()
        let firstStore = try MatrixCryptoStore(path: path, pickleKey: pickleKey)
        try await firstStore.storeInboundGroupSession(try MegolmInboundSession(sessionKey: try outbound.sessionKey()), roomID: "!room:test",
                                                      senderKey: "carol-curve", sharedBy: "@carol:test")
        let payload: JSONValue = ["type": "m.room.message", "room_id": "!room:test", "content": ["msgtype": "m.text", "body": "/refund 12"]]
        let content: JSONValue = ["algorithm": "m.megolm.v1.aes-sha2", "sender_key": "carol-curve", "session_id": .string(outbound.sessionID),
                                  "ciphertext": .string(try outbound.encrypt(payload.jsonString()))]
        func event(_ id: String) -> JSONValue { ["type": "m.room.encrypted", "event_id": .string(id), "sender": "@carol:test", "content": content] }
        func isDecrypted(_ result: MatrixDecryption) -> Bool { if case .decrypted = result { return true }; return false }

        let before = MatrixE2EE(store: firstStore)
        #expect(isDecrypted(await before.decrypt(event("$first"), room: "!room:test")))
        guard case .failed(let why) = await before.decrypt(event("$again"), room: "!room:test") else {
            Issue.record("a replay in the same process was decrypted")
            return
        }
        #expect(why.contains("a replay"))

        // A restart: a new store object and engine on the same store.
        let after = MatrixE2EE(store: try MatrixCryptoStore(path: path, pickleKey: pickleKey))
        guard case .failed(let later) = await after.decrypt(event("$after-restart"), room: "!room:test") else {
            Issue.record("a replay after a restart was decrypted")
            return
        }
        #expect(later.contains("was event $first"))
        // The same event again (a sync answer handled twice) is no replay.
        #expect(isDecrypted(await after.decrypt(event("$first"), room: "!room:test")))
    }
}
