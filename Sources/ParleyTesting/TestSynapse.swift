import Foundation
import ParleyMatrix

/// The Synapse started by `scripts/synapse start`, as its `PARLEY_MATRIX_*` variables describe
/// it: the one place tests find the homeserver, register fresh accounts and lift rate limits.
/// Suites that need it run only when `isConfigured`.
public enum TestSynapse {
    /// Why a Matrix test cannot reach its homeserver.
    public struct NotConfigured: Error, CustomStringConvertible {
        public let variable: String
        public var description: String { "\(variable) is not set (or not valid): run the test under scripts/synapse" }
    }

    public static let environment = ProcessInfo.processInfo.environment

    /// Whether a homeserver is configured for this test process.
    public static var isConfigured: Bool { environment["PARLEY_MATRIX_HOMESERVER"] != nil }

    /// The homeserver's base URL.
    public static func url() throws -> URL {
        guard let url = environment["PARLEY_MATRIX_HOMESERVER"].flatMap(URL.init(string:)) else {
            throw NotConfigured(variable: "PARLEY_MATRIX_HOMESERVER")
        }
        return url
    }

    /// The server's `registration_shared_secret` (the Python checkers register their own users).
    public static func sharedSecret() throws -> String {
        guard let secret = environment["PARLEY_MATRIX_SHARED_SECRET"] else {
            throw NotConfigured(variable: "PARLEY_MATRIX_SHARED_SECRET")
        }
        return secret
    }

    /// The registrar holding the server's `registration_shared_secret`.
    public static func registrar() throws -> MatrixRegistrar {
        MatrixRegistrar(homeserver: try url(), sharedSecret: try sharedSecret())
    }

    /// Registers a fresh account `<prefix>-<random>` (tests share one server, so names never repeat).
    public static func register(_ prefix: String, admin: Bool = false) async throws -> MatrixRegistrar.Account {
        let tag = UUID().uuidString.prefix(8).lowercased()
        return try await registrar().register("\(prefix)-\(tag)", password: "pw-\(UUID().uuidString)", admin: admin)
    }

    /// One admin per test process, only to change other accounts' rate limits.
    private static let admin = Task { try await register("admin", admin: true) }

    /// Sets `userID`'s message rate limit; the defaults (0, 0) lift it. Synapse's own default
    /// (0.2/s, burst 10) would throttle an account that several tests talk to.
    public static func setRateLimit(of userID: String, perSecond: Int = 0, burst: Int = 0) async throws {
        try await registrar().overrideRateLimit(of: userID, messagesPerSecond: perSecond, burstCount: burst,
                                                adminToken: try await admin.value.accessToken)
    }

    /// The python of the Synapse venv (matrix-nio is installed there).
    public static var python: String {
        if let python = environment["PARLEY_MATRIX_PYTHON"] { return python }
        let home = environment["PARLEY_SYNAPSE_HOME"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/parley/synapse").path
        return home + "/venv/bin/python"
    }
}
