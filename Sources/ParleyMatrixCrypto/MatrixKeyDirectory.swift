import ParleyCore
import ParleyCrypto
import ParleyMatrix

/// Another device as `/keys/query` described it, its self-signature verified.
public struct MatrixDevice: Sendable, Hashable {
    public let userID: String
    public let deviceID: String
    /// Its Olm identity key (`curve25519:<device id>`).
    public let curve25519: String
    /// Its signing key (`ed25519:<device id>`): what its one-time keys are verified against.
    public let ed25519: String
    public let algorithms: [String]

    /// A device known otherwise (restored from a store); its keys are taken as given.
    public init(userID: String, deviceID: String, curve25519: String, ed25519: String, algorithms: [String]) {
        self.userID = userID
        self.deviceID = deviceID
        self.curve25519 = curve25519
        self.ed25519 = ed25519
        self.algorithms = algorithms
    }
}

/// A device whose keys were not trusted, and why: dropped, and reported so it can be logged.
public struct MatrixRejectedDevice: Sendable, Hashable {
    public enum Reason: String, Sendable, Error {
        /// The object's `user_id` or `device_id` is not the one it was listed under.
        case mismatchedIdentity = "user_id or device_id differs from where the server listed it"
        /// `keys` lacks `curve25519:<device>` or `ed25519:<device>`, or the object is malformed.
        case missingKeys = "no curve25519 or ed25519 key for the device"
        /// The device's signature over its own keys is missing or does not verify.
        case badSignature = "its self-signature does not verify"
        /// A claimed one-time key is malformed or its signature by the device does not verify.
        case badOneTimeKey = "the claimed one-time key is malformed or its signature does not verify"
    }

    public let userID: String
    public let deviceID: String
    public let reason: Reason

    public init(userID: String, deviceID: String, reason: Reason) {
        self.userID = userID
        self.deviceID = deviceID
        self.reason = reason
    }
}

/// The devices of users, from `/keys/query`.
public struct MatrixKeyQueryResult: Sendable {
    /// The devices whose self-signature verified.
    public var devices: [MatrixDevice] = []
    /// The devices dropped.
    public var rejected: [MatrixRejectedDevice] = []
    /// Servers that could not be asked (server name → the error object), as the answer says.
    public var failures: [String: JSONValue] = [:]
}

/// One claimed one-time (or fallback) key, its signature verified against its device.
public struct MatrixClaimedKey: Sendable, Hashable {
    public let device: MatrixDevice
    /// The key's id (after `signed_curve25519:`).
    public let keyID: String
    /// The curve25519 key to build an outbound Olm session from.
    public let key: String
    /// True when the server had no one-time key left and handed out the fallback key.
    public let isFallback: Bool
}

/// One key per device, from `/keys/claim`.
public struct MatrixKeyClaimResult: Sendable {
    public var keys: [MatrixClaimedKey] = []
    /// Devices whose key did not verify.
    public var rejected: [MatrixRejectedDevice] = []
    /// Devices for which the server returned no key (none left, no fallback, or unreachable).
    public var missing: [MatrixDevice] = []
    /// Servers that could not be asked, as the answers say.
    public var failures: [String: JSONValue] = [:]
    /// Devices of batches whose request failed (no answer, or an error answer): not claimed.
    public var unclaimed: [MatrixDevice] = []
    /// The errors of those requests, one per failed batch.
    public var requestErrors: [ParleyError] = []
}

/// Reading other devices' keys: `/keys/query` (each device's self-signature checked) and
/// `/keys/claim` (each one-time key's signature checked against its device's ed25519 key).
/// Nothing unverified comes out as trusted: it is dropped and reported.
public enum MatrixKeyDirectory {
    /// Devices per `/keys/claim` request: a broadcast to many devices claims in batches of
    /// this many, one request each (Synapse handles them in one query).
    public static let claimBatchSize = 100

    /// The devices of `users`, verified.
    public static func query(_ users: [String], through client: MatrixClient) async throws -> MatrixKeyQueryResult {
        devices(fromQueryAnswer: try await client.queryKeys(users: users))
    }

    /// Checks a `/keys/query` answer: each device object must name the user and device it is
    /// listed under, carry both keys, and be signed by its own ed25519 key.
    public static func devices(fromQueryAnswer answer: JSONValue) -> MatrixKeyQueryResult {
        var result = MatrixKeyQueryResult()
        result.failures = answer["failures"]?.objectValue ?? [:]
        for (userID, devices) in (answer["device_keys"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            for (deviceID, keys) in (devices.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                switch device(keys, userID: userID, deviceID: deviceID) {
                case .success(let device): result.devices.append(device)
                case .failure(let reason): result.rejected.append(MatrixRejectedDevice(userID: userID, deviceID: deviceID, reason: reason))
                }
            }
        }
        return result
    }

    /// One device object, verified (`userID` and `deviceID` are where the answer listed it).
    public static func device(_ value: JSONValue, userID: String, deviceID: String) -> Result<MatrixDevice, MatrixRejectedDevice.Reason> {
        guard let object = value.objectValue else { return .failure(.missingKeys) }
        guard object["user_id"]?.stringValue == userID, object["device_id"]?.stringValue == deviceID else {
            return .failure(.mismatchedIdentity)
        }
        guard let curve = object["keys"]?["curve25519:\(deviceID)"]?.stringValue,
              let ed = object["keys"]?["ed25519:\(deviceID)"]?.stringValue
        else { return .failure(.missingKeys) }
        guard MatrixSigning.verify(object, userID: userID, keyName: deviceID, ed25519Key: ed) else {
            return .failure(.badSignature)
        }
        let algorithms = object["algorithms"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return .success(MatrixDevice(userID: userID, deviceID: deviceID, curve25519: curve, ed25519: ed, algorithms: algorithms))
    }

    /// Claims one `signed_curve25519` key for each of `devices`, `batchSize` devices per
    /// request, one request after the other. A failed request does not end the claim: its
    /// devices are listed as `unclaimed` with the error, and the keys of the other batches
    /// (already handed out by the server) are kept. Only cancellation throws.
    public static func claim(_ devices: [MatrixDevice], through client: MatrixClient,
                             batchSize: Int = claimBatchSize) async throws -> MatrixKeyClaimResult {
        var result = MatrixKeyClaimResult()
        let size = max(1, batchSize)
        for start in stride(from: 0, to: devices.count, by: size) {
            let batch = Array(devices[start..<min(start + size, devices.count)])
            var wanted: [String: [String: String]] = [:]
            for device in batch { wanted[device.userID, default: [:]][device.deviceID] = MatrixDeviceKeys.oneTimeKeyAlgorithm }
            let answer: JSONValue
            do {
                answer = try await client.claimKeys(wanted)
            } catch let error as ParleyError where error.code != .cancelled {
                result.unclaimed += batch
                result.requestErrors.append(error)
                continue
            }
            try Task.checkCancellation()
            let part = keys(fromClaimAnswer: answer, for: batch)
            result.keys += part.keys
            result.rejected += part.rejected
            result.missing += part.missing
            result.failures.merge(part.failures) { _, new in new }
        }
        return result
    }

    /// Checks a `/keys/claim` answer for `devices`: each device's key must be a
    /// `signed_curve25519` object signed by that device's ed25519 key.
    public static func keys(fromClaimAnswer answer: JSONValue, for devices: [MatrixDevice]) -> MatrixKeyClaimResult {
        var result = MatrixKeyClaimResult()
        result.failures = answer["failures"]?.objectValue ?? [:]
        let prefix = MatrixDeviceKeys.oneTimeKeyAlgorithm + ":"
        for device in devices {
            guard let keys = answer["one_time_keys"]?[device.userID]?[device.deviceID]?.objectValue, !keys.isEmpty else {
                result.missing.append(device)
                continue
            }
            guard keys.count == 1, let (name, value) = keys.first, name.hasPrefix(prefix),
                  let object = value.objectValue, let key = object["key"]?.stringValue,
                  MatrixSigning.verify(object, userID: device.userID, keyName: device.deviceID, ed25519Key: device.ed25519)
            else {
                result.rejected.append(MatrixRejectedDevice(userID: device.userID, deviceID: device.deviceID, reason: .badOneTimeKey))
                continue
            }
            result.keys.append(MatrixClaimedKey(device: device, keyID: String(name.dropFirst(prefix.count)), key: key,
                                                isFallback: object["fallback"]?.boolValue == true))
        }
        return result
    }
}
