/// A conversation as one account sees it: a person (the other user of a direct conversation)
/// or a group. Written as a target `user:ID` or `group:ID` in YAML and logs.
public struct Channel: Sendable, Hashable, Codable, CustomStringConvertible, Comparable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case person
        case group
        /// A conversation that exists only on this client (the seeds' local custom conversation).
        case local
    }

    public var kind: Kind
    public var id: String

    public init(kind: Kind, id: String) {
        self.kind = kind
        self.id = id
    }

    public static func person(_ id: String) -> Channel { Channel(kind: .person, id: id) }
    public static func group(_ id: String) -> Channel { Channel(kind: .group, id: id) }

    /// Parses `user:ID`, `group:ID` or `local:ID`; nil for anything else or an empty id.
    public init?(target: String) {
        guard let colon = target.firstIndex(of: ":") else { return nil }
        let id = String(target[target.index(after: colon)...])
        guard !id.isEmpty else { return nil }
        switch target[..<colon] {
        case "user": self.init(kind: .person, id: id)
        case "group": self.init(kind: .group, id: id)
        case "local": self.init(kind: .local, id: id)
        default: return nil
        }
    }

    /// `user:ID`, `group:ID` or `local:ID`.
    public var target: String {
        switch kind {
        case .person: return "user:\(id)"
        case .group: return "group:\(id)"
        case .local: return "local:\(id)"
        }
    }

    public var description: String { target }

    public static func < (lhs: Channel, rhs: Channel) -> Bool { lhs.target < rhs.target }
}
