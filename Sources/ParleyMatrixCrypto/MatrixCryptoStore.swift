import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore

/// The device's end-to-end encryption state in SQLite or a PostgreSQL schema (a `postgres://`
/// location, see `StoreLocation`): the Olm account, Olm sessions,
/// inbound and outbound Megolm sessions and the tracked devices of other users.
///
/// Its own file (beside the bot's Matrix store, or `:memory:` in tests) with its own
/// migrations (`crypto`). Every secret is written only as a pickle under the ``PickleKey``;
/// the file holds no key in clear. Opening unpickles the stored account, so a changed or lost
/// pickle key is a clear error at start, not garbage later.
///
/// Crash safety (the "survives a SIGKILL at any point"): each method is one SQLite
/// transaction (WAL, durable across a process crash), and the methods are shaped so that no
/// crash between two writes can double-use a one-time key or lose an inbound session:
/// ``storeInbound(session:theirIdentityKey:account:)`` writes a new inbound Olm session with
/// the account that no longer holds its one-time key, in one transaction. The order callers
/// must keep is written on each method.
public actor MatrixCryptoStore {
    /// The account as stored, with the user and device it belongs to.
    public struct StoredAccount: Sendable {
        public let userID: String
        public let deviceID: String
        public let account: OlmAccount
    }

    let db: Connection
    let key: PickleKey
    /// The account unpickled at open (nil in a new store), kept current by ``storeAccount(_:userID:deviceID:)``.
    private var stored: StoredAccount?
    let now: @Sendable () -> Date

    /// Opens (creating and migrating) the store at `path` and unpickles the stored account.
    /// - Throws: ``MatrixCryptoStoreError/wrongPickleKey(path:)`` when `key` does not open the
    ///   stored account; `ParleyError(.storage)` when the file cannot be opened or read.
    public init(path: String, pickleKey: PickleKey, log: @escaping @Sendable (String) -> Void = { _ in },
                now: @escaping @Sendable () -> Date = Date.init) throws {
        key = pickleKey
        self.now = now
        do {
            db = try Self.migrations.open(path, warn: log)
        } catch {
            throw ParleyError(.storage, "cannot open the Matrix crypto store: \(error)", context: ["path": StoreLocation(path).shown])
        }
        stored = try Self.loadAccount(db, key: pickleKey)
    }

    /// The stored account, unpickled: checking the key here is what makes a wrong key an error
    /// at open rather than at the first message.
    private static func loadAccount(_ db: Connection, key: PickleKey) throws -> StoredAccount? {
        let row = try storage(db) { try db.rows("SELECT user_id, device_id, pickle FROM crypto_account WHERE id = 1").first }
        guard let row, let userID = row[0].string, let deviceID = row[1].string, let pickle = row[2].string else { return nil }
        do {
            return StoredAccount(userID: userID, deviceID: deviceID, account: try OlmAccount(pickle: pickle, key: key))
        } catch let error as OlmError where error.code == .wrongPickleKey {
            throw MatrixCryptoStoreError.wrongPickleKey(path: StoreLocation(db.path).shown)
        }
    }

    /// Runs `body`, turning SQLite errors into `ParleyError(.storage)` naming the file.
    static func storage<T>(_ db: Connection, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ParleyError { throw error } catch let error as StoreError {
            throw ParleyError(.storage, "Matrix crypto store: \(error)", context: ["path": StoreLocation(db.path).shown])
        }
    }

    func storage<T>(_ body: () throws -> T) throws -> T { try Self.storage(db, body) }

    /// Seconds since 1970, the unit of the `*_at` / `last_used` columns.
    var timestamp: StoreValue { .real(now().timeIntervalSince1970) }

    // MARK: - The account

    /// The account stored (nil before the first ``storeAccount(_:userID:deviceID:)``).
    public func account() -> StoredAccount? { stored }

    /// Writes the account. Call it after every change that must survive a restart, before the
    /// changed account is used for anything else: a new account (before its keys are
    /// uploaded), generated one-time or fallback keys (before the upload, so the keys uploaded
    /// are the ones kept), and above all after `MatrixDeviceKeys.publish` or `replenish`
    /// succeeded (keys marked published), so a restart does not upload the same ids again
    /// with other keys. A used one-time key is removed with
    /// ``storeInbound(session:theirIdentityKey:account:)`` instead.
    public func storeAccount(_ account: OlmAccount, userID: String, deviceID: String) throws {
        let pickle = try account.pickle(key: key)
        try storage {
            try db.run("""
                INSERT INTO crypto_account (id, user_id, device_id, pickle) VALUES (1, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET user_id = excluded.user_id, device_id = excluded.device_id, pickle = excluded.pickle
                """, [.text(userID), .text(deviceID), .text(pickle)])
        }
        stored = StoredAccount(userID: userID, deviceID: deviceID, account: account)
    }

    /// After `account` was written under the stored user and device: ``account()`` returns it.
    func accountStored(_ account: OlmAccount) {
        if let stored { self.stored = StoredAccount(userID: stored.userID, deviceID: stored.deviceID, account: account) }
    }
}

/// What opening the crypto store can fail with besides a storage error.
public enum MatrixCryptoStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stored account does not unpickle with the configured key.
    case wrongPickleKey(path: String)

    public var description: String {
        switch self {
        case .wrongPickleKey(let path):
            "the pickle key does not open the stored account: was `encryption.pickle_key` changed? The crypto store "
                + "\(path) can only be read with the key it was written with; restore that key (starting over with a new "
                + "store makes this bot a new device, and messages sent to the old one cannot be read)"
        }
    }
}
