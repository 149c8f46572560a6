/// Where profiles come from: the transport's server, a directory, the user's own system.
public protocol ProfileProvider: Sendable {
    /// The most ids one `fetchProfiles` call takes (`ProfileService` splits larger requests).
    var maxBatchSize: Int { get }
    /// Profiles of the given ids; unknown ids are left out.
    func fetchProfiles(_ ids: [String]) async throws -> [Profile]
}

extension ProfileProvider {
    public var maxBatchSize: Int { 100 }
}

/// A fixed list of profiles (the YAML directory of a bot host is one).
public struct StaticProfileProvider: ProfileProvider {
    private let profiles: [String: Profile]

    /// A provider of exactly these profiles (the last of a repeated id wins).
    public init(_ profiles: [Profile]) {
        self.profiles = Dictionary(profiles.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    public func fetchProfiles(_ ids: [String]) async throws -> [Profile] {
        ids.compactMap { profiles[$0] }
    }
}

/// The profiles the IM server itself knows (`Transport.profiles(of:)`).
public struct TransportProfileProvider: ProfileProvider {
    /// The transport asked.
    public let transport: any Transport

    /// Profiles from `transport`.
    public init(transport: any Transport) { self.transport = transport }

    public func fetchProfiles(_ ids: [String]) async throws -> [Profile] {
        try await transport.profiles(of: ids)
    }
}
