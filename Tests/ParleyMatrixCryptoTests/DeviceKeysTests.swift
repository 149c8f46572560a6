import Foundation
import ParleyCore
import ParleyMatrix
import ParleyCrypto
import ParleyMatrixCrypto
import Testing

/// Signing and checking keys without a homeserver.
@Suite struct DeviceKeysTests {
    let keys: MatrixDeviceKeys

    init() throws {
        keys = MatrixDeviceKeys(account: try OlmAccount(), userID: "@bot:example.org", deviceID: "BOTDEVICE")
    }

    @Test func deviceKeysAreSignedAndVerify() throws {
        let object = try keys.deviceKeys()
        #expect(object["user_id"] == "@bot:example.org")
        #expect(object["device_id"] == "BOTDEVICE")
        #expect(object["algorithms"] == ["m.olm.v1.curve25519-aes-sha2", "m.megolm.v1.aes-sha2"])
        #expect(object["keys"]?["ed25519:BOTDEVICE"]?.stringValue == keys.account.identityKeys.ed25519)
        #expect(object["keys"]?["curve25519:BOTDEVICE"]?.stringValue == keys.account.identityKeys.curve25519)
        let device = try MatrixKeyDirectory.device(.object(object), userID: "@bot:example.org", deviceID: "BOTDEVICE").get()
        #expect(device.curve25519 == keys.account.identityKeys.curve25519)
        // `unsigned` (which servers add) is outside the signature.
        var withUnsigned = object
        withUnsigned["unsigned"] = ["device_display_name": "a name"]
        #expect(MatrixSigning.verify(withUnsigned, userID: "@bot:example.org", keyName: "BOTDEVICE",
                                     ed25519Key: keys.account.identityKeys.ed25519))
    }

    @Test func tamperedDeviceKeysFailVerification() throws {
        let object = try keys.deviceKeys()
        let other = try OlmAccount()
        var swapped = object
        swapped["keys"] = ["curve25519:BOTDEVICE": .string(other.identityKeys.curve25519),
                           "ed25519:BOTDEVICE": .string(keys.account.identityKeys.ed25519)]
        #expect(reason(swapped) == .badSignature)
        var algorithms = object
        algorithms["algorithms"] = ["m.olm.v1.curve25519-aes-sha2"]
        #expect(reason(algorithms) == .badSignature)
        var unsignedObject = object
        unsignedObject["signatures"] = nil
        #expect(reason(unsignedObject) == .badSignature)
        var garbage = object
        garbage["signatures"] = ["@bot:example.org": ["ed25519:BOTDEVICE": "not base64 !"]]
        #expect(reason(garbage) == .badSignature)
        // Re-signed by another key that claims to be the device's: the key inside and the signature must agree.
        let forged = try MatrixSigning.sign(swapped.filter { $0.key != "signatures" }, account: other,
                                            userID: "@bot:example.org", deviceID: "BOTDEVICE")
        #expect(reason(forged) == .badSignature)
        #expect(MatrixKeyDirectory.device(.object(object), userID: "@bot:example.org", deviceID: "OTHER")
            .failureReason == .mismatchedIdentity)
        var noKeys = object
        noKeys["keys"] = [:]
        #expect(reason(noKeys) == .missingKeys)
    }

    @Test func queryAnswerDropsAndReportsBadDevices() throws {
        var bad = try keys.deviceKeys()
        bad["algorithms"] = []
        let good = try MatrixDeviceKeys(account: try OlmAccount(), userID: "@bot:example.org", deviceID: "GOOD").deviceKeys()
        let answer: JSONValue = ["device_keys": ["@bot:example.org": ["BOTDEVICE": .object(bad), "GOOD": .object(good)]],
                                 "failures": ["other.example": ["errcode": "M_UNKNOWN"]]]
        let result = MatrixKeyDirectory.devices(fromQueryAnswer: answer)
        #expect(result.devices.map(\.deviceID) == ["GOOD"])
        #expect(result.rejected == [MatrixRejectedDevice(userID: "@bot:example.org", deviceID: "BOTDEVICE", reason: .badSignature)])
        #expect(result.failures.keys.sorted() == ["other.example"])
    }

    @Test func oneTimeAndFallbackKeysAreSigned() throws {
        try keys.account.generateOneTimeKeys(count: 3)
        try keys.account.generateFallbackKey()
        let oneTime = try keys.signedOneTimeKeys()
        let fallback = try keys.signedFallbackKeys()
        #expect(oneTime.count == 3 && fallback.count == 1)
        let device = try MatrixKeyDirectory.device(.object(keys.deviceKeys()), userID: keys.userID, deviceID: keys.deviceID).get()
        for (name, value) in oneTime.merging(fallback, uniquingKeysWith: { $1 }) {
            #expect(name.hasPrefix("signed_curve25519:"))
            let object = try #require(value.objectValue)
            #expect(MatrixSigning.verify(object, userID: keys.userID, keyName: keys.deviceID, ed25519Key: device.ed25519))
        }
        #expect(fallback.values.first?["fallback"] == true)
        #expect(oneTime.values.allSatisfy { $0["fallback"] == nil })

        // A claim answer: the good key verifies; a tampered one is rejected; a device without one is missing.
        let (name, value) = try #require(oneTime.first)
        var tampered = try #require(value.objectValue)
        tampered["key"] = .string(try #require(oneTime.values.first { $0 != value }?["key"]?.stringValue))
        let second = MatrixDevice(userID: "@bot:example.org", deviceID: "SECOND", curve25519: device.curve25519,
                                  ed25519: device.ed25519, algorithms: [])
        let third = MatrixDevice(userID: "@bot:example.org", deviceID: "THIRD", curve25519: "", ed25519: device.ed25519, algorithms: [])
        // The signatures name the device: a key signed for BOTDEVICE does not verify as SECOND's.
        let answer: JSONValue = ["one_time_keys": ["@bot:example.org": [
            "BOTDEVICE": [name: value], "SECOND": [name: value],
        ]]]
        let claimed = MatrixKeyDirectory.keys(fromClaimAnswer: answer, for: [device, second, third])
        #expect(claimed.keys.map(\.keyID) == [String(name.dropFirst("signed_curve25519:".count))])
        #expect(claimed.keys.first?.key == value["key"]?.stringValue)
        #expect(claimed.rejected.map(\.deviceID) == ["SECOND"])
        #expect(claimed.missing.map(\.deviceID) == ["THIRD"])
        let tamperedAnswer: JSONValue = ["one_time_keys": ["@bot:example.org": ["BOTDEVICE": [name: .object(tampered)]]]]
        #expect(MatrixKeyDirectory.keys(fromClaimAnswer: tamperedAnswer, for: [device]).rejected.map(\.reason) == [.badOneTimeKey])
    }

    /// A failed request leaves its batch unclaimed and the claim goes on with the next.
    @Test func failedBatchesAreListedNotThrown() async throws {
        // Nothing listens on port 9 of loopback (discard): each request fails at once.
        let client = MatrixClient(homeserver: try #require(URL(string: "http://127.0.0.1:9")), accessToken: "t",
                                  requestTimeout: .seconds(5))
        let devices = (1...3).map {
            MatrixDevice(userID: "@u:example.org", deviceID: "D\($0)", curve25519: "c", ed25519: "e", algorithms: [])
        }
        let result = try await MatrixKeyDirectory.claim(devices, through: client, batchSize: 2)
        #expect(result.keys.isEmpty && result.unclaimed == devices)
        #expect(result.requestErrors.map(\.code) == [.networkUnavailable, .networkUnavailable])
    }

    /// Keep half of the account's maximum on the server, counting keys not yet uploaded.
    @Test(arguments: [
        (0, 0, 100, 50), (9, 0, 100, 41), (50, 0, 100, 0), (70, 0, 100, 0), (10, 5, 100, 35), (0, 60, 100, 0), (-3, 0, 100, 50),
        (0, 0, 101, 50),
    ])
    func replenishRule(serverCount: Int, unpublished: Int, max: Int, expected: Int) {
        #expect(MatrixDeviceKeys.oneTimeKeysToGenerate(serverCount: serverCount, unpublished: unpublished, maxOneTimeKeys: max) == expected)
    }

    private func reason(_ object: [String: JSONValue]) -> MatrixRejectedDevice.Reason? {
        MatrixKeyDirectory.device(.object(object), userID: "@bot:example.org", deviceID: "BOTDEVICE").failureReason
    }
}

extension Result {
    var failureReason: Failure? {
        if case .failure(let reason) = self { return reason }
        return nil
    }
}
