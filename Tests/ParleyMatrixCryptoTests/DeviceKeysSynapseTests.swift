import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrix
import ParleyMatrixCrypto
import ParleyTesting
import Testing

/// The device's keys through a real Synapse: upload, query, claim, and an Olm session built
/// from a claimed key (in-process: sending it to-device is the next layer).
@Suite(.enabled(if: TestSynapse.isConfigured, "needs PARLEY_MATRIX_HOMESERVER (eval \"$(scripts/synapse start)\")"))
struct DeviceKeysSynapseTests {
    /// A registered user logged in through its own `MatrixClient`, with a fresh Olm account.
    struct Device {
        var client: MatrixClient
        var keys: MatrixDeviceKeys
    }

    static func device(_ prefix: String) async throws -> Device {
        let account = try await TestSynapse.register(prefix)
        let client = MatrixClient(homeserver: try TestSynapse.url(), accessToken: account.accessToken)
        let whoami = try await client.whoami()
        let deviceID = try #require(whoami.deviceID)
        return Device(client: client, keys: MatrixDeviceKeys(account: try OlmAccount(), userID: whoami.userID, deviceID: deviceID))
    }

    @Test func uploadQueryClaimAndOpenAnOlmSession() async throws {
        try await withTimeout("the key exchange", seconds: 60) {
            let bot = try await Self.device("bot")
            let alice = try await Self.device("alice")

            // The bot publishes its device keys, 10 one-time keys and a fallback key.
            try bot.keys.account.generateOneTimeKeys(count: 10)
            try bot.keys.account.generateFallbackKey()
            let uploaded = try bot.keys.signedOneTimeKeys()
            let counts = try await bot.keys.publish(through: bot.client, includeDeviceKeys: true)
            #expect(counts["signed_curve25519"] == 10)
            #expect(try bot.keys.account.oneTimeKeys().isEmpty)
            #expect(try bot.keys.account.unpublishedFallbackKey().isEmpty)

            // Alice queries the bot's keys: its device, with a verifying self-signature.
            let query = try await MatrixKeyDirectory.query([bot.keys.userID], through: alice.client)
            #expect(query.rejected.isEmpty && query.failures.isEmpty)
            let device = try #require(query.devices.first { $0.deviceID == bot.keys.deviceID })
            #expect(query.devices.count == 1)
            #expect(device.userID == bot.keys.userID)
            #expect(device.ed25519 == bot.keys.account.identityKeys.ed25519)
            #expect(device.curve25519 == bot.keys.account.identityKeys.curve25519)
            #expect(device.algorithms == MatrixDeviceKeys.algorithms)

            // She claims one of its one-time keys; its signature verifies against the device.
            let claim = try await MatrixKeyDirectory.claim([device], through: alice.client)
            #expect(claim.rejected.isEmpty && claim.missing.isEmpty)
            let claimed = try #require(claim.keys.first)
            #expect(claim.keys.count == 1 && !claimed.isFallback)
            #expect(uploaded["signed_curve25519:\(claimed.keyID)"]?["key"]?.stringValue == claimed.key)

            // The server now holds 9 (an upload of nothing answers with the counts).
            #expect(try await bot.client.uploadKeys(deviceKeys: nil)["signed_curve25519"] == 9)

            // Alice opens an Olm session from the claimed key; the bot reads her pre-key message.
            let outbound = try OlmSession(outboundFrom: alice.keys.account, theirIdentityKey: device.curve25519,
                                          theirOneTimeKey: claimed.key)
            let message = try outbound.encrypt(#"{"type":"m.dummy","content":{}}"#)
            #expect(message.kind == .preKey)
            let inbound = try OlmSession(inboundFrom: bot.keys.account, message: message,
                                         theirIdentityKey: alice.keys.account.identityKeys.curve25519)
            try bot.keys.account.removeOneTimeKeys(usedBy: inbound)
            #expect(try inbound.decrypt(message) == #"{"type":"m.dummy","content":{}}"#)
            #expect(inbound.sessionID == outbound.sessionID)

            // Topping up keeps half of the account's maximum on the server.
            let replenished = try await bot.keys.replenish(serverCount: 9, through: bot.client)
            #expect(replenished?["signed_curve25519"] == bot.keys.account.maxNumberOfOneTimeKeys / 2)
            #expect(try await bot.keys.replenish(serverCount: bot.keys.account.maxNumberOfOneTimeKeys / 2, through: bot.client) == nil)
        }
    }

    /// An upload whose answer was lost is repeated as is and accepted; another key under a
    /// published id is refused, as `invalidArgument` with the server's errcode.
    @Test func repeatedUploadIsAcceptedAndAConflictingKeyRefused() async throws {
        try await withTimeout("the repeated upload", seconds: 60) {
            let bot = try await Self.device("bot")
            try bot.keys.account.generateOneTimeKeys(count: 2)
            let deviceKeys = try bot.keys.deviceKeys()
            let oneTime = try bot.keys.signedOneTimeKeys()
            #expect(try await bot.keys.publish(through: bot.client, includeDeviceKeys: true)["signed_curve25519"] == 2)
            // The same objects again (signatures are deterministic): accepted, nothing added.
            #expect(try bot.keys.deviceKeys() == deviceKeys && bot.keys.account.oneTimeKeys().isEmpty)
            let again = try await bot.client.uploadKeys(deviceKeys: .object(deviceKeys), oneTimeKeys: oneTime)
            #expect(again["signed_curve25519"] == 2)
            // Another key under a published id.
            let (name, value) = try #require(oneTime.first)
            var other = try #require(value.objectValue)
            other["key"] = .string(try OlmAccount().identityKeys.curve25519)
            let conflicting = try MatrixSigning.sign(other, account: bot.keys.account, userID: bot.keys.userID,
                                                     deviceID: bot.keys.deviceID)
            await #expect {
                _ = try await bot.client.uploadKeys(deviceKeys: nil, oneTimeKeys: [name: .object(conflicting)])
            } throws: { error in
                (error as? ParleyError)?.code == .invalidArgument && (error as? ParleyError)?.context["errcode"] != nil
            }
        }
    }

    /// Synapse's own canonicaljson and signedjson (scripts/keys-check.py) verify what this
    /// module signed: the check that our canonical JSON is the one other implementations write.
    @Test func anIndependentCheckerVerifiesTheSignatures() async throws {
        try await withTimeout("the independent check", seconds: 180) {
            let bot = try await Self.device("bot")
            let alice = try await Self.device("alice")
            try bot.keys.account.generateOneTimeKeys(count: 3)
            let uploaded = try bot.keys.signedOneTimeKeys()
            try await bot.keys.publish(through: bot.client, includeDeviceKeys: true)

            let result = try await ScriptRunner.run("keys-check.py", [
                "--homeserver", try TestSynapse.url().absoluteString, "--token", alice.client.accessToken ?? "",
                "--user", bot.keys.userID, "--timeout", "30",
            ], timeout: .seconds(60))
            try #require(result.status == 0, "keys-check.py exited \(result.status): \(result.stderr)")
            let checked = try JSONValue.parse(Data(result.stdout.utf8))
            let devices = try #require(checked["devices"]?.arrayValue)
            #expect(devices.count == 1)
            #expect(devices.first?["device_id"]?.stringValue == bot.keys.deviceID)
            #expect(devices.first?["ed25519"]?.stringValue == bot.keys.account.identityKeys.ed25519)
            #expect(devices.first?["verified"] == true)
            let claimed = try #require(checked["claimed"]?.arrayValue)
            #expect(claimed.count == 1)
            #expect(claimed.first?["verified"] == true && claimed.first?["fallback"] == false)
            let keyID = try #require(claimed.first?["key_id"]?.stringValue)
            #expect(uploaded["signed_curve25519:\(keyID)"]?["key"] == claimed.first?["key"])
        }
    }

    /// Claims in batches: three devices, two per request, all keys verified.
    @Test func claimsManyDevicesInBatches() async throws {
        try await withTimeout("the batched claim", seconds: 60) {
            var bots: [Device] = []
            for _ in 0..<3 {
                let bot = try await Self.device("bot")
                try bot.keys.account.generateOneTimeKeys(count: 2)
                try await bot.keys.publish(through: bot.client, includeDeviceKeys: true)
                bots.append(bot)
            }
            let alice = try await Self.device("alice")
            let query = try await MatrixKeyDirectory.query(bots.map(\.keys.userID), through: alice.client)
            #expect(query.devices.count == 3 && query.rejected.isEmpty)
            let claim = try await MatrixKeyDirectory.claim(query.devices, through: alice.client, batchSize: 2)
            #expect(Set(claim.keys.map(\.device.deviceID)) == Set(bots.map(\.keys.deviceID)))
            #expect(claim.rejected.isEmpty && claim.missing.isEmpty)
        }
    }
}
