import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrix
import ParleyMatrixCrypto
import Synchronization
@testable import ParleyMatrix

/// Transports with end-to-end encryption for the tests, and what they log, to wait on.
enum EncryptedTestDevice {
    static let pickleKey = "a-test-pickle-key-0123456789"

    /// A transport of `user` with `mode`, its crypto store beside its database (`engine`, when
    /// the test needs to reach the device itself, is the one made by `engine(databasePath:)`).
    static func transport(_ user: TestHomeserver.User, mode: MatrixEncryptionMode = .default, password: Bool = false,
                          log: LogLines? = nil, databasePath: String? = nil, engine: MatrixE2EE? = nil,
                          configure: (inout MatrixConfiguration) -> Void = { _ in }) throws -> MatrixTransport {
        let database = databasePath ?? TestHomeserver.freshDatabasePath()
        let encryption = try engine ?? Self.engine(databasePath: database, log: log)
        return try TestHomeserver.transport(user, password: password, databasePath: database) {
            $0.encryptionMode = mode
            $0.encryption = encryption
            $0.log = { line in log?.append(line) }
            configure(&$0)
        }
    }

    /// The device of a transport whose database is `databasePath` (its folder made).
    static func engine(databasePath: String, log: LogLines? = nil) throws -> MatrixE2EE {
        try FileManager.default.createDirectory(atPath: (databasePath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let store = try MatrixCryptoStore(path: databasePath + ".crypto", pickleKey: PickleKey(pickleKey))
        return MatrixE2EE(store: store, log: { line in log?.append(line) })
    }

    /// `count` new users, each with an encrypting transport (mode `allow`) connected, and the
    /// inbox of each by user id.
    static func readers(_ count: Int) async throws -> (inboxes: [String: Inbox], transports: [MatrixTransport]) {
        var inboxes: [String: Inbox] = [:]
        var transports: [MatrixTransport] = []
        for _ in 0..<count {
            let user = try await TestHomeserver.register("reader")
            let transport = try transport(user, mode: .allow)
            inboxes[user.userID] = Inbox.start(try await transport.connect())
            transports.append(transport)
        }
        return (inboxes, transports)
    }

    /// The room's events as the server holds them (newest first), read without decrypting.
    static func rawEvents(_ user: TestHomeserver.User, room: String) async throws -> [JSONValue] {
        try await user.client.messages(room: room, from: nil, direction: "b", limit: 100)["chunk"]?.arrayValue ?? []
    }
}

/// Log lines collected from a transport (its `log` closure runs on any thread), with a wait
/// for one that contains a text.
final class LogLines: Sendable {
    private struct Waiter {
        let id: UUID
        let text: String
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var lines: [String] = []
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    var all: [String] { state.withLock { $0.lines } }

    func append(_ line: String) {
        let ready = state.withLock { state in
            state.lines.append(line)
            let ready = state.waiters.filter { line.contains($0.text) }.map(\.continuation)
            state.waiters.removeAll { line.contains($0.text) }
            return ready
        }
        for waiter in ready { waiter.resume(returning: true) }
    }

    /// Returns true once a line containing `text` was logged, false if the task is cancelled
    /// first (so `withTimeout` can end a wait for a line that never comes).
    @discardableResult
    func waitFor(_ text: String) async -> Bool {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answer: Bool? = state.withLock { state in
                    if state.lines.contains(where: { $0.contains(text) }) { return true }
                    if Task.isCancelled { return false }
                    state.waiters.append(Waiter(id: id, text: text, continuation: continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }
}
