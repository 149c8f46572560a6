import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrix
import ParleyMatrixCrypto
import ParleyStore
import YAMLCoding

extension MatrixSettings {
    /// `transport.encryption` mistakes, each at its line and column.
    func encryptionProblems(source: SourceFile) -> [YAMLError] {
        guard let encryption else { return [] }
        guard let mode = encryption.parsedMode else {
            let modes = MatrixEncryptionMode.allCases.map(\.rawValue).joined(separator: ", ")
            return [source.error(at: encryption.mode?.mark ?? encryption.mark,
                                 "invalid encryption mode '\(encryption.mode?.value ?? "")': expected one of \(modes)")]
        }
        guard mode.servesEncrypted else { return [] }
        guard let key = encryption.pickleKey else {
            return [source.error(at: encryption.mark, "encryption mode '\(mode.rawValue)' needs 'pickle_key' (like \"${PARLEY_PICKLE_KEY}\"): "
                                 + "the secret the bot's keys are encrypted with in the store")]
        }
        guard key.value.count >= MatrixEncryptionSettings.minimumKeyLength else {
            return [source.error(at: key.mark, "pickle_key is \(key.value.count) characters (is its variable set?): use at least "
                                 + "\(MatrixEncryptionSettings.minimumKeyLength) random characters, e.g. from `openssl rand -base64 32`")]
        }
        return []
    }

    /// The encryption of bot `bot`'s account: nothing with mode `off`, else its crypto store
    /// (`crypto-<bot>` in `databases`) opened with the pickle key — a wrong key fails here, at
    /// start, naming the file.
    func encryption(bot: String, databases: AccountDatabases, log: @escaping @Sendable (String) -> Void) throws
        -> (mode: MatrixEncryptionMode, encryption: (any MatrixEncryption)?) {
        guard let settings = encryption, let mode = settings.parsedMode, mode.servesEncrypted else { return (.off, nil) }
        guard let key = settings.pickleKey?.value, key.count >= MatrixEncryptionSettings.minimumKeyLength else {
            throw ParleyError(.invalidArgument, "transport.encryption.pickle_key is missing or shorter than "
                              + "\(MatrixEncryptionSettings.minimumKeyLength) characters", context: ["field": "transport.encryption.pickle_key"])
        }
        let path = databases.location("crypto-\(bot)", of: bot)
        let store: MatrixCryptoStore
        do {
            store = try MatrixCryptoStore(path: path, pickleKey: PickleKey(key), log: log)
        } catch let error as MatrixCryptoStoreError {
            throw ParleyError(.invalidArgument, "bot '\(bot)': \(error)", context: ["field": "transport.encryption.pickle_key", "path": StoreLocation(path).shown])
        }
        return (mode, MatrixE2EE(store: store, log: log))
    }
}
