import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrixCrypto
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// Key requests between the bot's own devices: a device that lacks a room key asks for it, and
/// the device holding the account's cross-signing keys forwards it only to a device it signed.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixKeyRequestTests {
    /// Another device of `user` (a new login), its engine started without a password: it is not
    /// cross-signed, and cannot replace the account's cross-signing keys.
    struct OtherDevice {
        let client: MatrixClient
        let engine: MatrixE2EE
        let deviceID: String
        let log = LogLines()
        var since: String?

        init(of user: TestHomeserver.User, name: String) async throws {
            let login = try await MatrixClient(homeserver: try TestSynapse.url())
                .login(user: user.userID, password: user.password, deviceID: nil, deviceName: name)
            client = MatrixClient(homeserver: try TestSynapse.url(), accessToken: login.accessToken)
            deviceID = login.deviceID
            engine = try EncryptedTestDevice.engine(databasePath: TestHomeserver.freshDatabasePath(), log: log)
            try await engine.start(client: client, userID: user.userID, deviceID: deviceID, password: nil)
        }

        /// One `/sync` handled by the engine (its to-device messages: forwarded keys).
        mutating func sync() async throws {
            let response = try await client.sync(filterID: nil, since: since, timeout: .milliseconds(500))
            try await engine.handleSync(response, client: client)
            since = response["next_batch"]?.stringValue
        }

        func isDecrypted(_ event: JSONValue, room: String) async -> Bool {
            if case .decrypted = await engine.decrypt(event, room: room) { return true }
            return false
        }
    }

    @Test func onlyACrossSignedOwnDeviceGetsAForwardedKey() async throws {
        try await withTimeout("key requests", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let aliceUser = try await TestHomeserver.register("alice")
            // The first device logs in with the password: it makes and holds the cross-signing keys.
            let database = TestHomeserver.freshDatabasePath()
            let botLog = LogLines()
            let holder = try EncryptedTestDevice.engine(databasePath: database, log: botLog)
            let bot = try EncryptedTestDevice.transport(botUser, mode: .allow, password: true, log: botLog, databasePath: database,
                                                        engine: holder)
            let alice = try EncryptedTestDevice.transport(aliceUser, mode: .default)
            let botInbox = Inbox.start(try await bot.connect())
            _ = try await alice.connect()
            _ = try await alice.send(MatrixEncryptedRoomTests.text("before the other devices", to: .person(botUser.userID)))
            #expect(await botInbox.waitForText("before the other devices"))
            let room = try await alice.roomID(for: .person(botUser.userID))
            let event = try #require(try await EncryptedTestDevice.rawEvents(aliceUser, room: room).first {
                $0["type"]?.stringValue == "m.room.encrypted" && $0["content"]?["ciphertext"] != nil
            })

            // A device nobody signed asks: refused, it gets nothing.
            var stranger = try await OtherDevice(of: botUser, name: "unsigned")
            #expect(await !stranger.isDecrypted(event, room: room))
            await stranger.engine.requestKey(for: event, room: room, client: stranger.client)
            #expect(await botLog.waitFor("refused device \(stranger.deviceID)'s key request"), "\(botLog.all)")

            // The holder signs the second device: its request is answered, and it decrypts.
            var second = try await OtherDevice(of: botUser, name: "second")
            try await holder.signOwnDevice(second.deviceID, client: botUser.client)
            await second.engine.requestKey(for: event, room: room, client: second.client)
            #expect(await botLog.waitFor("forwarded the key of session"), "\(botLog.all)")
            var decrypted = false
            for _ in 0..<20 where !decrypted {
                try await second.sync()
                decrypted = await second.isDecrypted(event, room: room)
            }
            #expect(decrypted, "\(second.log.all)")
            try await stranger.sync()
            #expect(await !stranger.isDecrypted(event, room: room))
            #expect(!botLog.all.contains { $0.contains("forwarded") && $0.contains(stranger.deviceID) })
            await bot.disconnect()
            await alice.disconnect()
        }
    }
}
