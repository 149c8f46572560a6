import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrix
import ParleyMatrixCrypto
@testable import ParleyHosting
import Testing

/// `transport.encryption`: the mode and the pickle key, checked at their line and column, and
/// the crypto store opened with the key at start (a wrong key is an error naming the file).
@Suite struct EncryptionSettingTests {
    /// A Matrix section of one account (five lines), then `encryption` at line 6.
    static func config(_ encryption: String) -> String {
        InsecureHomeserverTests.config("http://127.0.0.1:8008") + "\n  encryption: \(encryption)"
    }

    static func configuration(_ yaml: String, folder: String) throws -> MatrixConfiguration {
        let settings = try MatrixSettingsTests.settings(yaml)
        return try MatrixBotAccounts.configuration(bot: "support", file: "bots/support.yaml", settings: settings,
                                                   homeserver: MatrixBotAccounts.homeserver(settings), databases: AccountDatabases(folder: folder), log: { _ in })
    }

    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-encryption-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func eachModeIsAcceptedAndOffNeedsNoKey() throws {
        for mode in ["allow", "default", "require"] {
            #expect(TransportSectionTests.errors(Self.config("{ mode: \(mode), pickle_key: 0123456789abcdef0123 }")) == "")
        }
        #expect(TransportSectionTests.errors(Self.config("{ mode: off }")) == "")
        let folder = try Self.folder()
        let off = try Self.configuration(Self.config("{ mode: off }"), folder: folder)
        #expect(off.encryptionMode == .off && off.encryption == nil)
        let on = try Self.configuration(Self.config("{ mode: default, pickle_key: 0123456789abcdef0123 }"), folder: folder)
        #expect(on.encryptionMode == .default && on.encryption != nil)
        #expect(FileManager.default.fileExists(atPath: folder + "/crypto-support.db"))
    }

    @Test func anUnknownModeIsAnErrorAtItsValue() {
        #expect(TransportSectionTests.errors(Self.config("{ mode: on, pickle_key: 0123456789abcdef0123 }")) == """
            config.yaml:6:23: error: invalid encryption mode 'on': expected one of off, allow, default, require
              encryption: { mode: on, pickle_key: 0123456789abcdef0123 }
                                  ^
            """)
    }

    @Test func aServingModeNeedsALongEnoughKey() {
        #expect(TransportSectionTests.errors(Self.config("{ mode: allow }")).hasPrefix(
            "config.yaml:6:15: error: encryption mode 'allow' needs 'pickle_key'"))
        #expect(TransportSectionTests.errors(Self.config("{ mode: require, pickle_key: short }")).hasPrefix(
            "config.yaml:6:44: error: pickle_key is 5 characters (is its variable set?)"))
    }

    @Test func anUnknownKeyIsRefused() {
        #expect(TransportSectionTests.errors(Self.config("{ mode: allow, pickle_key: 0123456789abcdef0123, pickle: x }"))
            .contains("unknown key 'pickle'"))
    }

    @Test func aChangedPickleKeyIsAnErrorAtStartNamingTheStore() async throws {
        let folder = try Self.folder()
        let first = try Self.configuration(Self.config("{ mode: allow, pickle_key: the-first-key-0123456789 }"), folder: folder)
        // The store holds an account only once one was made: the device's start makes it.
        let store = try MatrixCryptoStore(path: folder + "/crypto-support.db",
                                                             pickleKey: PickleKey("the-first-key-0123456789"))
        try await store.storeAccount(try OlmAccount(), userID: "@support:localhost", deviceID: "DEVICE")
        _ = first
        let error = #expect(throws: ParleyError.self) {
            try Self.configuration(Self.config("{ mode: allow, pickle_key: another-key-0123456789 }"), folder: folder)
        }
        #expect(error?.message.contains("the pickle key does not open the stored account") == true)
        #expect(error?.context["path"] == folder + "/crypto-support.db")
    }
}
