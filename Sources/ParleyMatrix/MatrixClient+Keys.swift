import Foundation
import ParleyCore

/// The end-to-end encryption key endpoints (`/keys/upload`, `/keys/query`, `/keys/claim`), as
/// thin wrappers like the others: they carry signed JSON objects and know nothing of Olm
/// (signing and verifying is `ParleyMatrixCrypto`'s job). Errors map as every request's do
/// (see `MatrixClient.error`): a refused upload — a one-time key id reused with another key —
/// is `invalidArgument`, with the server's errcode in the context.
extension MatrixClient {
    /// How long `/keys/query` and `/keys/claim` let the homeserver wait for other servers
    /// (their body's `timeout`); the request's own timeout is this plus a margin.
    public static let keysFederationTimeout: Duration = .seconds(10)

    /// `POST /keys/upload`: the device's signed `device_keys` (nil once published), signed
    /// one-time keys (`signed_curve25519:<id>` → object) and fallback keys. Returns the
    /// server's `one_time_key_counts` (algorithm → keys it holds for this device).
    public func uploadKeys(deviceKeys: JSONValue?, oneTimeKeys: [String: JSONValue] = [:],
                           fallbackKeys: [String: JSONValue] = [:]) async throws -> [String: Int] {
        var body: [String: JSONValue] = [:]
        if let deviceKeys { body["device_keys"] = deviceKeys }
        if !oneTimeKeys.isEmpty { body["one_time_keys"] = .object(oneTimeKeys) }
        if !fallbackKeys.isEmpty { body["fallback_keys"] = .object(fallbackKeys) }
        let answer = try await request("POST", Self.clientPath("keys", "upload"), body: .object(body))
        guard let counts = answer["one_time_key_counts"]?.objectValue else {
            throw ParleyError(.serverError, "keys/upload answer lacks one_time_key_counts")
        }
        return counts.compactMapValues { $0.intValue.map(Int.init) }
    }

    /// `POST /keys/query` for all devices of `users`: the answer as sent (`device_keys`:
    /// user → device → signed object; `failures`: server → error). Not checked here.
    public func queryKeys(users: [String]) async throws -> JSONValue {
        let devices = Dictionary(users.map { ($0, JSONValue.array([])) }, uniquingKeysWith: { first, _ in first })
        let body: JSONValue = ["device_keys": .object(devices),
                               "timeout": .int(Self.keysFederationTimeout.components.seconds * 1000)]
        return try await request("POST", Self.clientPath("keys", "query"), body: body,
                                 timeout: max(requestTimeout, Self.keysFederationTimeout + .seconds(15)))
    }

    /// `POST /keys/claim` for one key per listed device (user → device → algorithm, e.g.
    /// `signed_curve25519`), in one request: the answer as sent (`one_time_keys`: user →
    /// device → `{"<algorithm>:<id>": signed object}`; `failures`). Not checked here.
    public func claimKeys(_ devices: [String: [String: String]]) async throws -> JSONValue {
        let wanted = devices.mapValues { JSONValue.object($0.mapValues { .string($0) }) }
        let body: JSONValue = ["one_time_keys": .object(wanted),
                               "timeout": .int(Self.keysFederationTimeout.components.seconds * 1000)]
        return try await request("POST", Self.clientPath("keys", "claim"), body: body,
                                 timeout: max(requestTimeout, Self.keysFederationTimeout + .seconds(15)))
    }
}

extension MatrixClient {
    /// `PUT /sendToDevice/{type}/{txnId}`: `messages` is user → device → content. The
    /// transaction id makes a repeat after a lost answer harmless.
    public func sendToDevice(type: String, messages: [String: [String: JSONValue]], txnID: String) async throws {
        let body: JSONValue = ["messages": .object(messages.mapValues { .object($0) })]
        try await request("PUT", Self.clientPath("sendToDevice", type, txnID), body: body)
    }
}

extension MatrixClient {
    /// `POST /keys/device_signing/upload`: the account's cross-signing keys (each a signed
    /// `CrossSigningKey` object). The homeserver may ask for user-interactive auth; with a
    /// `password` the request is repeated with `m.login.password` for that session.
    public func uploadCrossSigningKeys(_ keys: [String: JSONValue], userID: String, password: String?) async throws {
        do {
            try await request("POST", Self.clientPath("keys", "device_signing", "upload"), body: .object(keys))
        } catch let error as ParleyError where error.code == .unauthorized && error.context["uia_session"] != nil {
            guard let password, let session = error.context["uia_session"] else { throw error }
            var body = keys
            body["auth"] = ["type": "m.login.password", "identifier": ["type": "m.id.user", "user": .string(userID)],
                            "password": .string(password), "session": .string(session)]
            try await request("POST", Self.clientPath("keys", "device_signing", "upload"), body: .object(body))
        }
    }

    /// `POST /keys/signatures/upload`: signed objects (user → key id or device id → object).
    /// Returns the `failures` the server reported (empty when all were accepted).
    public func uploadSignatures(_ signed: [String: [String: JSONValue]]) async throws -> JSONValue {
        let answer = try await request("POST", Self.clientPath("keys", "signatures", "upload"),
                                       body: .object(signed.mapValues { .object($0) }))
        return answer["failures"] ?? [:]
    }
}
