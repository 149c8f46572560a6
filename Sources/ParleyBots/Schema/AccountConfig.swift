import YAMLCoding

/// One bot's login on a homeserver: a password or an access token.
public struct AccountConfig: Decodable, Sendable {
    /// Full user id (`@support:localhost`).
    public var user: Located<String>
    /// Password (use `${VAR}`).
    public var password: Located<String>?
    /// Access token (use `${VAR}`).
    public var accessToken: Located<String>?
    /// Device id to reuse.
    public var deviceID: Located<String>?
    /// Where the account's mapping starts.
    public var mark: Mark

    enum CodingKeys: String, CodingKey {
        case user, password, accessToken = "access_token", deviceID = "device_id"
    }

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decode(Located<String>.self, forKey: .user)
        password = try container.decodeIfPresent(Located<String>.self, forKey: .password)
        accessToken = try container.decodeIfPresent(Located<String>.self, forKey: .accessToken)
        deviceID = try container.decodeIfPresent(Located<String>.self, forKey: .deviceID)
    }
}
