import Foundation

/// A device's long-term keys, as Matrix publishes them in `device_keys.keys`.
public struct IdentityKeys: Sendable, Equatable, Codable {
    /// Identifies the device in Olm sessions (`curve25519:<device id>`).
    public let curve25519: String
    /// Signs the device's keys (`ed25519:<device id>`).
    public let ed25519: String
}

/// Decoding olm's JSON outputs into Swift values, checked: a shape other than the documented
/// one is an ``OlmError`` with ``OlmError/Code/unexpectedOutput``, not a guess.
enum KeyLists {
    /// olm's key lists: `{"curve25519": {"<key id>": "<key>"}}`.
    private struct Curve25519Keys: Decodable {
        let curve25519: [String: String]
    }

    static func identityKeys(_ json: String) throws -> IdentityKeys {
        do {
            return try JSONDecoder().decode(IdentityKeys.self, from: Data(json.utf8))
        } catch {
            throw OlmError(operation: "parse identity keys", code: .unexpectedOutput)
        }
    }

    static func curve25519Keys(_ json: String, operation: String) throws -> [String: String] {
        do {
            return try JSONDecoder().decode(Curve25519Keys.self, from: Data(json.utf8)).curve25519
        } catch {
            throw OlmError(operation: operation, code: .unexpectedOutput)
        }
    }
}
