import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrixCrypto
import ParleyTesting
import ParleyStore
import Testing

/// The crypto store on each `TestDatabase` kind: what comes back after a reopen still works, a
/// wrong pickle key is refused at open, and (in a SQLite file) no secret is on disk in clear.
/// No network.
@Suite struct CryptoStoreTests {
    let key = PickleKey("the configured pickle key")
    let created = Date(timeIntervalSince1970: 1_800_000_000)

    func open(_ path: String, _ key: PickleKey? = nil) throws -> MatrixCryptoStore {
        let now = created
        return try MatrixCryptoStore(path: path, pickleKey: key ?? self.key, now: { now })
    }

    /// The bytes of the database and its WAL, as they are on disk now.
    func fileBytes(_ path: String) -> Data {
        [path, path + "-wal"].reduce(into: Data()) { bytes, file in bytes += (FileManager.default.contents(atPath: file) ?? Data()) }
    }

    func removeFiles(_ path: String) {
        for file in [path, path + "-wal", path + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
    }

    @Test(arguments: TestDatabase.kinds)
    func accountComesBackWorking(database: TestDatabase) async throws {
        let path = database.location("crypto")
        defer { removeFiles(path) }
        let account = try OlmAccount()
        do {
            let store = try open(path)
            #expect(await store.account() == nil)
            try await store.storeAccount(account, userID: "@bot:example.org", deviceID: "BOTDEVICE")
        }
        let stored = try #require(await open(path).account())
        #expect(stored.userID == "@bot:example.org")
        #expect(stored.deviceID == "BOTDEVICE")
        #expect(stored.account.identityKeys == account.identityKeys)
        let signature = try stored.account.sign("{\"a\":1}")
        #expect(try OlmUtility.verifyEd25519(key: account.identityKeys.ed25519, message: "{\"a\":1}", signature: signature))
    }

    @Test(arguments: TestDatabase.kinds)
    func wrongPickleKeyIsAClearErrorAtOpen(database: TestDatabase) async throws {
        let path = database.location("crypto")
        defer { removeFiles(path) }
        do { try await open(path).storeAccount(OlmAccount(), userID: "@bot:example.org", deviceID: "BOTDEVICE") }
        // Named without a PostgreSQL password.
        let shown = StoreLocation(path).shown
        #expect(throws: MatrixCryptoStoreError.wrongPickleKey(path: shown)) { try open(path, PickleKey("another key")) }
        let message = MatrixCryptoStoreError.wrongPickleKey(path: shown).description
        #expect(message.contains("the pickle key does not open the stored account: was `encryption.pickle_key` changed?"))
        #expect(message.contains(shown))
        if case .postgres(let url, _, _) = StoreLocation(path), let password = URLComponents(string: url)?.password {
            #expect(!message.contains(password))
        }
    }

    /// The other device starts a session with a pre-key message; the bot stores the session
    /// and the account without the used one-time key together. After a reopen the key is gone
    /// (the same pre-key message cannot start a second session) and the session goes on.
    @Test(arguments: TestDatabase.kinds)
    func inboundOlmSessionAndUsedOneTimeKeySurviveTogether(database: TestDatabase) async throws {
        let path = database.location("crypto")
        defer { removeFiles(path) }
        let bot = try OlmAccount()
        try bot.generateOneTimeKeys(count: 1)
        let oneTimeKey = try #require(bot.oneTimeKeys().values.first)
        try bot.markKeysAsPublished()
        do { try await open(path).storeAccount(bot, userID: "@bot:example.org", deviceID: "BOTDEVICE") }

        let alice = try OlmAccount()
        let aliceSession = try OlmSession(outboundFrom: alice, theirIdentityKey: bot.identityKeys.curve25519, theirOneTimeKey: oneTimeKey)
        let preKey = try aliceSession.encrypt("first")
        #expect(preKey.kind == .preKey)
        do {
            let store = try open(path)
            let account = try #require(await store.account()).account
            let session = try OlmSession(inboundFrom: account, message: preKey, theirIdentityKey: alice.identityKeys.curve25519)
            try account.removeOneTimeKeys(usedBy: session)
            #expect(try session.decrypt(preKey) == "first")
            try await store.storeInbound(session: session, theirIdentityKey: alice.identityKeys.curve25519, account: account)
        }

        let store = try open(path)
        let account = try #require(await store.account()).account
        #expect(throws: OlmError.self) {
            try OlmSession(inboundFrom: account, message: preKey, theirIdentityKey: alice.identityKeys.curve25519)
        }
        let sessions = try await store.olmSessions(theirIdentityKey: alice.identityKeys.curve25519)
        #expect(sessions.map(\.sessionID) == [aliceSession.sessionID])
        let session = try #require(sessions.first)
        #expect(try session.decrypt(aliceSession.encrypt("second")) == "second")
        try await store.storeSession(session, theirIdentityKey: alice.identityKeys.curve25519)
        let reply = try #require(try await store.olmSessions(theirIdentityKey: alice.identityKeys.curve25519).first).encrypt("answer")
        #expect(try aliceSession.decrypt(reply) == "answer")
    }

    @Test(arguments: TestDatabase.kinds)
    func olmSessionsComeMostRecentlyUsedFirst(database: TestDatabase) async throws {
        let path = database.location("crypto")
        defer { removeFiles(path) }
        var clock = created
        let alice = try OlmAccount(), bob = try OlmAccount()
        try bob.generateOneTimeKeys(count: 2)
        let keys = try bob.oneTimeKeys().values.sorted()
        let first = try OlmSession(outboundFrom: alice, theirIdentityKey: bob.identityKeys.curve25519, theirOneTimeKey: keys[0])
        let second = try OlmSession(outboundFrom: alice, theirIdentityKey: bob.identityKeys.curve25519, theirOneTimeKey: keys[1])
        for session in [first, second, first] {
            clock += 1
            let now = clock
            try await MatrixCryptoStore(path: path, pickleKey: key, now: { now })
                .storeSession(session, theirIdentityKey: bob.identityKeys.curve25519)
        }
        let ids = try await open(path).olmSessions(theirIdentityKey: bob.identityKeys.curve25519).map(\.sessionID)
        #expect(ids == [first.sessionID, second.sessionID])
        #expect(try await open(path).olmSessions(theirIdentityKey: alice.identityKeys.curve25519).isEmpty)
    }

    /// Outbound and inbound Megolm sessions continue at the right index after a reopen.
    @Test(arguments: TestDatabase.kinds)
    func megolmSessionsContinueAtTheRightIndex(database: TestDatabase) async throws {
        let path = database.location("crypto")
        defer { removeFiles(path) }
        let outbound = try MegolmOutboundSession()
        let inbound = try MegolmInboundSession(sessionKey: outbound.sessionKey())
        let early = try [outbound.encrypt("zero"), outbound.encrypt("one")]
        do {
            let store = try open(path)
            try await store.storeOutboundGroupSession(outbound, roomID: "!room:example.org")
            try await store.storeInboundGroupSession(inbound, roomID: "!room:example.org", senderKey: "alice-curve",
                                                     sharedBy: "@alice:example.org")
        }
        let store = try open(path)
        let sending = try #require(try await store.outboundGroupSession(roomID: "!room:example.org"))
        #expect(sending.messagesSent == 2)
        #expect(sending.createdAt == created)
        #expect(sending.session.sessionID == outbound.sessionID)
        #expect(sending.session.messageIndex == 2)
        let third = try sending.session.encrypt("two")

        let receiving = try #require(try await store.inboundGroupSession(roomID: "!room:example.org", senderKey: "alice-curve",
                                                                         sessionID: outbound.sessionID))
        #expect(receiving.sharedBy == "@alice:example.org")
        #expect(receiving.session.firstKnownIndex == 0)
        #expect(try receiving.session.decrypt(third) == MegolmDecrypted(plaintext: "two", messageIndex: 2))
        #expect(try receiving.session.decrypt(early[1]) == MegolmDecrypted(plaintext: "one", messageIndex: 1))
        #expect(try await store.inboundGroupSession(roomID: "!other:example.org", senderKey: "alice-curve",
                                                    sessionID: outbound.sessionID) == nil)

        // The same session stored again keeps its creation time; a later copy of the
        // inbound session does not replace the earlier one.
        try await store.storeOutboundGroupSession(sending.session, roomID: "!room:example.org")
        let later = try MegolmInboundSession(importing: inbound.export(at: 1))
        try await store.storeInboundGroupSession(later, roomID: "!room:example.org", senderKey: "alice-curve", sharedBy: "@mallory:example.org")
        #expect(try await store.outboundGroupSession(roomID: "!room:example.org")?.messagesSent == 3)
        #expect(try await store.inboundGroupSession(roomID: "!room:example.org", senderKey: "alice-curve",
                                                    sessionID: outbound.sessionID)?.session.firstKnownIndex == 0)
        try await store.discardOutboundGroupSession(roomID: "!room:example.org")
        #expect(try await store.outboundGroupSession(roomID: "!room:example.org") == nil)
    }

    /// Neither the Megolm session key (which reads every message of a room) nor an Olm
    /// session's ratchet is anywhere in the database or its WAL: only pickles are.
    @Test func fileHoldsNoSecretInClear() async throws {
        let path = TestDatabase.sqlite.location("crypto")
        defer { removeFiles(path) }
        let store = try open(path)
        let account = try OlmAccount()
        try await store.storeAccount(account, userID: "@bot:example.org", deviceID: "BOTDEVICE")
        let outbound = try MegolmOutboundSession()
        let sessionKey = try outbound.sessionKey()
        let export = try MegolmInboundSession(sessionKey: sessionKey).export(at: 0)
        try await store.storeOutboundGroupSession(outbound, roomID: "!room:example.org")
        try await store.storeInboundGroupSession(MegolmInboundSession(sessionKey: sessionKey), roomID: "!room:example.org",
                                                 senderKey: account.identityKeys.curve25519, sharedBy: "@bot:example.org")

        let bytes = fileBytes(path)
        #expect(!bytes.isEmpty)
        // The public key is there (a sanity check that the search reads the stored rows)...
        #expect(bytes.range(of: Data("!room:example.org".utf8)) != nil)
        // ...the secrets are not, nor their raw (base64-decoded) bytes.
        for secret in [sessionKey, export] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil)
            let raw = try #require(Data(base64Encoded: secret + String(repeating: "=", count: (4 - secret.count % 4) % 4)))
            #expect(bytes.range(of: raw.subdata(in: 40..<72)) == nil)
        }
        // What is stored is the pickle under the key, and it opens only with that key.
        let pickle = try account.pickle(key: key)
        #expect(try OlmAccount(pickle: pickle, key: key).identityKeys == account.identityKeys)
        #expect(throws: OlmError.self) { try OlmAccount(pickle: pickle, key: PickleKey("another key")) }
    }

    @Test(arguments: TestDatabase.kinds)
    func trackedDevicesAndDirtyUsersRoundTrip(database: TestDatabase) async throws {
        let path = database.location("crypto")
        defer { removeFiles(path) }
        let alicePhone = MatrixDevice(userID: "@alice:example.org", deviceID: "PHONE", curve25519: "c1", ed25519: "e1",
                                      algorithms: ["m.olm.v1.curve25519-aes-sha2", "m.megolm.v1.aes-sha2"])
        let aliceLaptop = MatrixDevice(userID: "@alice:example.org", deviceID: "LAPTOP", curve25519: "c2", ed25519: "e2", algorithms: [])
        do {
            let store = try open(path)
            try await store.markDirty(["@bob:example.org", "@alice:example.org", "@carol:example.org"])
            #expect(try await store.dirtyUsers() == ["@alice:example.org", "@bob:example.org", "@carol:example.org"])
            try await store.storeDevices([alicePhone, aliceLaptop], of: "@alice:example.org")
            try await store.forget(["@carol:example.org"])
        }
        let store = try open(path)
        #expect(try await store.dirtyUsers() == ["@bob:example.org"])
        #expect(try await store.devices(of: "@alice:example.org") == [aliceLaptop, alicePhone])
        // A changed device list marks the user dirty again; the devices stay until re-queried.
        try await store.markDirty(["@alice:example.org"])
        #expect(try await store.dirtyUsers() == ["@alice:example.org", "@bob:example.org"])
        try await store.storeDevices([alicePhone], of: "@alice:example.org")
        #expect(try await store.devices(of: "@alice:example.org") == [alicePhone])
        try await store.forget(["@alice:example.org"])
        #expect(try await store.devices(of: "@alice:example.org").isEmpty)
        #expect(try await store.dirtyUsers() == ["@bob:example.org"])
    }

    /// Cross-signing keys and state facts written again replace the ones stored.
    @Test(arguments: TestDatabase.kinds)
    func crossSigningKeysAndStateAreReplaced(database: TestDatabase) async throws {
        let path = database.location("crypto")
        defer { removeFiles(path) }
        let first = try CrossSigningKeys.generate(), second = try CrossSigningKeys.generate()
        do {
            let store = try open(path)
            #expect(try await store.crossSigningKeys() == nil)
            #expect(try await store.state("device_signed") == nil)
            try await store.storeCrossSigningKeys(first)
            try await store.setState("device_signed", "A")
            try await store.storeCrossSigningKeys(second)
            try await store.setState("device_signed", "B")
        }
        let store = try open(path)
        let keys = try #require(try await store.crossSigningKeys())
        #expect([keys.master, keys.selfSigning, keys.userSigning].map(\.publicKey)
            == [second.master, second.selfSigning, second.userSigning].map(\.publicKey))
        #expect(try await store.state("device_signed") == "B")
    }
}
