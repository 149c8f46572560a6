import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrixCrypto
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// The bot's device is signed by its account's self-signing key, which its master key signs:
/// what another user's client reads from `/keys/query` to show the device as verified.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixCrossSigningTests {
    @Test func theBotsDeviceIsSignedByItsSelfSigningKey() async throws {
        try await withTimeout("cross-signing", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let alice = try await TestHomeserver.register("alice")
            let database = TestHomeserver.freshDatabasePath()
            let log = LogLines()
            var bot = try EncryptedTestDevice.transport(botUser, password: true, log: log, databasePath: database)
            _ = try await bot.connect()
            await bot.disconnect()
            // A restart signs nothing again and fails on nothing.
            bot = try EncryptedTestDevice.transport(botUser, password: true, log: log, databasePath: database)
            _ = try await bot.connect()
            await bot.disconnect()
            #expect(!log.all.contains { $0.contains("cross-signing") }, "\(log.all)")

            let answer = try await alice.client.queryKeys(users: [botUser.userID])
            let master = try #require(answer["master_keys"]?[botUser.userID]?.objectValue)
            let masterKey = try #require(master["keys"]?.objectValue?.values.first?.stringValue)
            let selfSigning = try #require(answer["self_signing_keys"]?[botUser.userID]?.objectValue)
            let selfSigningKey = try #require(selfSigning["keys"]?.objectValue?.values.first?.stringValue)
            #expect(MatrixSigning.verify(selfSigning, userID: botUser.userID, keyName: masterKey, ed25519Key: masterKey))
            let devices = try #require(answer["device_keys"]?[botUser.userID]?.objectValue)
            #expect(devices.count == 1)
            let device = try #require(devices.values.first?.objectValue)
            #expect(MatrixSigning.verify(device, userID: botUser.userID, keyName: selfSigningKey, ed25519Key: selfSigningKey))

            // The private parts are in the store only as pickles: the public keys' seeds are not
            // recoverable from the file, and the file holds no JSON key object in clear.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: database + ".crypto"))
            #expect(bytes.range(of: Data("\"usage\"".utf8)) == nil)
        }
    }
}
