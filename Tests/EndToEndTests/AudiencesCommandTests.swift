import Foundation
import ParleyBots
import ParleyCore
import ParleyTesting
import Testing

/// `parley audiences` and `parley audiences export NAME` on the store `parley run` keeps.
@Suite struct AudiencesCommandTests {
    typealias Commands = BroadcastCommandTests

    @Test func listsMembersOptOutsAndGrowthAndExportsMembers() async throws {
        let folder = try Commands.folder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.file(".parley"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let now = Date()
        do {
            let store = try BroadcastStore(path: folder.file(".parley/parley.db"))
            _ = try store.importMembers(bot: "news", audience: "daily", file: "subs.txt",
                                        targets: [.person("ann"), .person("bob"), .person("cid")], now: now.addingTimeInterval(-30 * 86_400))
            try store.unsubscribe(bot: "news", audience: "daily", target: "user:bob", source: .command, now: now.addingTimeInterval(-86_400))
            try store.subscribe(bot: "news", audience: "daily", target: "user:dan", source: .command, now: now.addingTimeInterval(-3_600))
            try store.subscribe(bot: "shop", audience: "deals", target: "user:ann", source: .api, now: now)
        }
        let list = await Commands.run(["audiences"], in: folder)
        #expect(list.status == 0)
        #expect(list.stdout == """
            news  daily  3 members, 1 opted out  last 7 days: +1 joined, -1 left
            shop  deals  1 member, 0 opted out  last 7 days: +1 joined, -0 left

            """)
        #expect(await Commands.run(["audiences", "--bot", "shop"], in: folder).stdout.hasPrefix("shop  deals"))
        let export = await Commands.run(["audiences", "export", "daily"], in: folder)
        #expect(export.status == 0)
        #expect(export.stdout == "user:ann\nuser:cid\nuser:dan\n")

        let unknown = await Commands.run(["audiences", "export", "weekly"], in: folder)
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "error: no audience 'weekly' has members or opt-outs\n")
        let usage = await Commands.run(["audiences", "export"], in: folder)
        #expect(usage.status == 64)
    }
}
