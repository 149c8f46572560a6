import Foundation
import ParleyCore
import ParleyHub
import ParleyTesting
import Testing

/// `parley broadcasts --failed JOB` and `parley broadcast --retry-failed JOB` on the embedded
/// hub kept in the config's storage, as `parley run` keeps it.
@Suite struct BroadcastRetryCommandTests {
    typealias Commands = BroadcastCommandTests

    /// Adds users `u{range}` to the hub file beside the store.
    static func addUsers(_ range: Range<Int>, in folder: TemporaryFolder) throws {
        let hub = try Hub(path: folder.file(".parley/parley.db"))
        for index in range { try hub.addUser(Profile(id: "u\(index)", name: "User \(index)")) }
        try hub.close()
    }

    /// The bot's messages to `u{index}`, as their texts.
    static func received(_ range: Range<Int>, in folder: TemporaryFolder) throws -> [Int: [String]] {
        let hub = try Hub(path: folder.file(".parley/parley.db"))
        defer { try? hub.close() }
        var texts: [Int: [String]] = [:]
        for index in range {
            texts[index] = try hub.messages(in: .person("news"), seenBy: "u\(index)").compactMap { $0.payload["text"]?.stringValue }
        }
        return texts
    }

    @Test func failedRecipientsAreListedAndRetriedOnce() async throws {
        let folder = try Commands.folder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.file(".parley"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try Self.addUsers(0..<990, in: folder)
        try (0..<1_000).map { "user:u\($0)\n" }.joined().write(toFile: folder.file("all.txt"), atomically: true, encoding: .utf8)

        let first = await Commands.run(["broadcast", "--bot", "news", "--to-file", "all.txt", "--text", "Hi {{recipient.id}}", "--id", "w1"],
                                       in: folder)
        #expect(first.status == 1)
        #expect(first.stderr == "error: 10 of 1000 recipients failed (see 'parley broadcasts --failed w1')\n")

        let failed = await Commands.run(["broadcasts", "--failed", "w1"], in: folder)
        #expect(failed.status == 0)
        #expect(failed.stdout == (990..<1_000).map { "user:u\($0)  notFound  no such user\n" }.joined()
                + "broadcast w1: 10 failed (retry: parley broadcast --retry-failed w1)\n")

        try Self.addUsers(990..<1_000, in: folder)
        let retry = await Commands.run(["broadcast", "--retry-failed", "w1", "--id", "w1-retry"], in: folder)
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(retry.stdout.hasPrefix("broadcast w1-retry: 10 recipients\nbroadcast w1-retry (news): 10 sent, 0 failed, 0 pending of 10 in "))
        #expect(await Commands.run(["broadcasts", "--failed", "w1-retry"], in: folder).stdout == "broadcast w1-retry: no failed recipients\n")

        let received = try Self.received(0..<1_000, in: folder)
        for index in 0..<1_000 where received[index] != ["Hi u\(index)"] {
            Issue.record("u\(index) received \(received[index] ?? [])")
            break
        }
        let list = await Commands.run(["broadcasts"], in: folder)
        #expect(list.stdout.hasPrefix("w1-retry  bot news  finished  10 sent, 0 failed, 0 pending of 10 (100%)  retry:w1  "))
    }

    @Test func retryingNeedsAKnownJobAndTakesNoMessage() async throws {
        let folder = try Commands.folder()
        defer { folder.remove() }
        let unknown = await Commands.run(["broadcast", "--retry-failed", "nope"], in: folder)
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "error: no broadcast with id 'nope'\n")
        let listed = await Commands.run(["broadcasts", "--failed", "nope"], in: folder)
        #expect(listed.status == 1)
        #expect(listed.stderr == "error: no broadcast with id 'nope'\n")
        let mixed = await Commands.run(["broadcast", "--retry-failed", "w1", "--text", "hi"], in: folder)
        #expect(mixed.status == 64)
        #expect(mixed.stderr.hasPrefix("error: option '--text' does not go with '--retry-failed' (the job's own is used)\n"))
    }
}
