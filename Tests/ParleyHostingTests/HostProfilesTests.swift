import Foundation
import ParleyBots
import ParleyCore
import ParleyHosting
import ParleyHub
import Testing

/// `profiles:` serves every transport: the config's source first, the transport's own
/// profiles for the rest, cached for `expire`.
@Suite struct HostProfilesTests {
    /// A config folder with a profiles directory; returns its config path.
    static func folder(profiles: String, config: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-hosting-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        try Data(profiles.utf8).write(to: URL(fileURLWithPath: folder + "/profiles.yaml"))
        try Data(config.utf8).write(to: URL(fileURLWithPath: folder + "/config.yaml"))
        try Data("name: Support\nfallback: [ { reply: hi } ]\n".utf8).write(to: URL(fileURLWithPath: folder + "/bots/support.yaml"))
        return folder
    }

    @Test func theDirectoryComesFirstAndTheTransportAnswersTheRest() async throws {
        let folder = try Self.folder(profiles: "bob: { name: Bob Stone, phone: \"+49 30 1234567\" }\n",
                                     config: "profiles: { directory: profiles.yaml, expire: 1s }\n")
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: { folder + "/" + $0 }, environment: [:])
        #expect(loaded.errors.isEmpty, "\(loaded.errors)")
        let profiles = try HostProfiles(catalog: loaded.catalog)
        #expect(profiles.expiry == .seconds(1))
        let hub = try Hub()
        try hub.addUser(Profile(id: "support", name: "Support"))
        try hub.addUser(Profile(id: "carol", name: "Carol on the server"))
        try hub.addUser(Profile(id: "bob", name: "Bob on the server"))
        let connection = profiles.connection(try hub.connect(user: "support"), storage: .memory)
        #expect(connection.profileExpiry == .seconds(1))
        let provider = try #require(connection.profileProvider)
        let found = try await provider.fetchProfiles(["bob", "carol", "nobody"])
        #expect(found.map(\.id) == ["bob", "carol"])
        #expect(found.map(\.name) == ["Bob Stone", "Carol on the server"])
        #expect(found.first?.phone == "+49 30 1234567")
    }

    @Test func withoutAProfilesSectionTheTransportAnswersAlone() throws {
        let folder = try Self.folder(profiles: "", config: "bots: bots\n")
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: { folder + "/" + $0 }, environment: [:])
        let profiles = try HostProfiles(catalog: loaded.catalog)
        let hub = try Hub()
        try hub.addUser(Profile(id: "support"))
        let connection = profiles.connection(try hub.connect(user: "support"), storage: .memory)
        #expect(connection.profileProvider == nil)
        #expect(connection.profileExpiry == nil)
    }
}

extension HostProfilesTests {
    @Test func aDirectoryOfManyPeopleIsReadPastTheBotFileSizeLimit() throws {
        // About 2 MB: twice what a bot file may be.
        let people = (0..<40_000).map { "user\($0): { name: \"Person number \($0)\" }\n" }.joined()
        let folder = try Self.folder(profiles: people, config: "profiles: { directory: profiles.yaml }\n")
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: { folder + "/" + $0 }, environment: [:])
        #expect(loaded.errors.isEmpty, "\(loaded.errors.prefix(1))")
        #expect(try HostProfiles(catalog: loaded.catalog).entries.count == 40_000)
    }
}
