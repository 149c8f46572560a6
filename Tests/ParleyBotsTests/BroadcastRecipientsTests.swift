import Foundation
import ParleyTesting
import ParleyBots
import ParleyCore
import Testing

@Suite struct BroadcastRecipientsTests {
    @Test func fileSkipsBlankLinesAndCommentsAndDuplicates() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("recipients.txt")
        try "# staff\nuser:alice\r\n\n   \n  group:all  \n# again\nuser:alice\nuser:bob\n".write(toFile: path, atomically: true, encoding: .utf8)
        var recipients = BroadcastRecipients()
        try recipients.append(targets: ["user:bob", "user:carol"])
        try recipients.append(file: path, displayPath: "bots/recipients.txt")
        #expect(recipients.channels == [.person("bob"), .person("carol"), .person("alice"), .group("all")])
    }

    @Test(arguments: [
        ("user:alice\nalice\n", "bots/r.txt:2: invalid target 'alice': expected user:ID or group:ID"),
        ("# x\n\nlocal:notes\n", "bots/r.txt:3: invalid target 'local:notes': expected user:ID or group:ID"),
        ("group:\n", "bots/r.txt:1: invalid target 'group:': expected user:ID or group:ID"),
    ])
    func badLinesNameFileAndLine(text: String, message: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try text.write(toFile: folder.file("r.txt"), atomically: true, encoding: .utf8)
        var recipients = BroadcastRecipients()
        let error = #expect(throws: BroadcastError.self) { try recipients.append(file: folder.file("r.txt"), displayPath: "bots/r.txt") }
        #expect(error?.description == message)
        #expect(error?.code == .invalidRecipients)
    }

    @Test func missingFileIsAnError() {
        var recipients = BroadcastRecipients()
        let error = #expect(throws: BroadcastError.self) { try recipients.append(file: "/nonexistent/r.txt", displayPath: "r.txt") }
        #expect(error?.description == "r.txt: cannot read the recipients file (missing or not readable)")
    }

    @Test func aHundredThousandLines() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let text = (0..<100_000).map { $0 % 1000 == 0 ? "# block \($0)\nuser:u\($0)" : "user:u\($0)" }.joined(separator: "\n")
        try text.write(toFile: folder.file("many.txt"), atomically: true, encoding: .utf8)
        var recipients = BroadcastRecipients()
        try recipients.append(file: folder.file("many.txt"), displayPath: "many.txt")
        #expect(recipients.channels.count == 100_000)
        #expect(recipients.channels.last == .person("u99999"))
    }

    @Test func inlineTargetsNameTheirIndex() {
        var recipients = BroadcastRecipients()
        let error = #expect(throws: BroadcastError.self) { try recipients.append(targets: ["user:a", "nobody"], source: "--to") }
        #expect(error?.description == "--to:2: invalid target 'nobody': expected user:ID or group:ID")
    }
}
