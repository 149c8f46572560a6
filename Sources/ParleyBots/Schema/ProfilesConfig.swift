import YAMLCoding

/// `profiles:` — a YAML directory file or an HTTP endpoint, and the cache lifetime.
public struct ProfilesConfig: Decodable, Sendable {
    /// A YAML map id → profile, relative to the config file.
    public var directory: Located<String>?
    /// HTTP endpoint with `{ids}`.
    public var url: Located<String>?
    /// Cache lifetime (`10m`).
    public var expire: Located<String>?
    /// Where the section starts.
    public var mark: Mark

    enum CodingKeys: String, CodingKey { case directory, url, expire }

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        directory = try container.decodeIfPresent(Located<String>.self, forKey: .directory)
        url = try container.decodeIfPresent(Located<String>.self, forKey: .url)
        expire = try container.decodeIfPresent(Located<String>.self, forKey: .expire)
    }
}
