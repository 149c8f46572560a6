import ParleyCore
import ParleyHub
import ParleyMatrix
import Testing

/// Short names on a homeserver: a bot file's `user:alice` is `@alice` on the bot's own server
/// unless mapped, and such a user is `alice` to the bot; a mapped name wins both ways.
@Suite struct RenamingTransportNamesTests {
    @Test func unmappedUsersLiveOnTheDefaultServer() throws {
        let names = RenamingTransport.Names(users: ["bob": "@robert:elsewhere.net", "support": "@helpdesk:example.org"],
                                            groups: ["agents": "!abc:example.org"], defaultServer: "example.org")
        let hub = try Hub()
        try hub.addUser(Profile(id: "@helpdesk:example.org"))
        let renaming = RenamingTransport(base: try hub.connect(user: "@helpdesk:example.org"), names: names)
        #expect(renaming.userID == "support")
        #expect(renaming.long(user: "alice") == "@alice:example.org")
        #expect(renaming.short(user: "@alice:example.org") == "alice")
        #expect(renaming.long(user: "bob") == "@robert:elsewhere.net")
        #expect(renaming.short(user: "@robert:elsewhere.net") == "bob")
        // `@bob:example.org` is not the `bob` of the table: it keeps its full id.
        #expect(renaming.short(user: "@bob:example.org") == "@bob:example.org")
        #expect(renaming.short(user: "@carol:other.org") == "@carol:other.org")
        #expect(renaming.long(user: "@carol:other.org") == "@carol:other.org")
        #expect(renaming.long(.group("agents")) == .group("!abc:example.org"))
        #expect(renaming.short(.group("!abc:example.org")) == .group("agents"))
        #expect(renaming.short(.group("!zzz:example.org")) == .group("!zzz:example.org"))
    }

    @Test func withoutADefaultServerUnknownNamesPassThrough() throws {
        let hub = try Hub()
        try hub.addUser(Profile(id: "bot"))
        let renaming = RenamingTransport(base: try hub.connect(user: "bot"), names: RenamingTransport.Names())
        #expect(renaming.long(user: "alice") == "alice")
        #expect(renaming.short(user: "@alice:example.org") == "@alice:example.org")
    }
}
