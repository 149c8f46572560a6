import Foundation
import ParleyCore

/// Creates accounts on a Synapse homeserver through its shared-secret admin API, for test
/// users of `parley test` against a live server and for the Matrix test suites.
///
/// Registration is `GET /_synapse/admin/v1/register` for a nonce, then a `POST` with the
/// HMAC-SHA1 of `nonce\0user\0password\0admin|notadmin` keyed with the server's
/// `registration_shared_secret`.
public struct MatrixRegistrar: Sendable {
    /// A freshly registered account.
    public struct Account: Sendable, Hashable {
        /// The full user id the server assigned.
        public var userID: String
        /// The password it was registered with.
        public var password: String
        /// A token of a device the registration created.
        public var accessToken: String

        /// An account known otherwise (logged in from a config's credentials).
        public init(userID: String, password: String, accessToken: String) {
            self.userID = userID
            self.password = password
            self.accessToken = accessToken
        }
    }

    /// The homeserver base URL.
    public let homeserver: URL
    private let sharedSecret: String

    /// A registrar for `homeserver` with its `registration_shared_secret`.
    public init(homeserver: URL, sharedSecret: String) {
        self.homeserver = homeserver
        self.sharedSecret = sharedSecret
    }

    /// Registers `localpart` (a server-side error such as `M_USER_IN_USE` is thrown as is).
    public func register(_ localpart: String, password: String, admin: Bool = false) async throws -> Account {
        let anonymous = MatrixClient(homeserver: homeserver)
        let path = "/_synapse/admin/v1/register"
        guard let nonce = try await anonymous.request("GET", path)["nonce"]?.stringValue else {
            throw ParleyError(.serverError, "the registration nonce answer has no nonce", context: ["path": path])
        }
        let message = [nonce, localpart, password, admin ? "admin" : "notadmin"].joined(separator: "\0")
        let mac = SHA1.hex(SHA1.hmac(key: Array(sharedSecret.utf8), message: Array(message.utf8)))
        let answer = try await anonymous.request("POST", path, body: [
            "nonce": .string(nonce), "username": .string(localpart), "password": .string(password),
            "admin": .bool(admin), "mac": .string(mac),
        ])
        guard let userID = answer["user_id"]?.stringValue, let token = answer["access_token"]?.stringValue else {
            throw ParleyError(.serverError, "the registration answer lacks user_id or access_token", context: ["path": path])
        }
        return Account(userID: userID, password: password, accessToken: token)
    }

    /// Overrides the message rate limit of `userID` (`override_ratelimit`), as the admin
    /// `adminToken`; the defaults (0, 0) lift it.
    public func overrideRateLimit(of userID: String, messagesPerSecond: Int = 0, burstCount: Int = 0,
                                  adminToken: String) async throws {
        let admin = MatrixClient(homeserver: homeserver, accessToken: adminToken)
        try await admin.request("POST", "/_synapse/admin/v1/users/\(MatrixClient.encode(userID))/override_ratelimit",
                                body: ["messages_per_second": .int(Int64(messagesPerSecond)), "burst_count": .int(Int64(burstCount))])
    }
}
