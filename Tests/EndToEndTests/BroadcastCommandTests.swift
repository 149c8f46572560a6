import Foundation
import ParleyTesting
import ParleyCLI
import Testing

/// `parley broadcast` and `parley broadcasts` on a config in a temporary folder (embedded
/// hub and broadcast store in SQLite files, as `parley run` keeps them).
@Suite struct BroadcastCommandTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: [String], in folder: TemporaryFolder) async -> Run {
        let output = CapturedOutput()
        let status = await ParleyCommand.main(arguments, context: CommandContext(output: output, environment: [:], currentDirectory: folder.path))
        return Run(status: status, stdout: output.standardOutput, stderr: output.standardError)
    }

    static func folder() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("bots"), withIntermediateDirectories: true)
        try "storage:\n  path: .parley/parley.db\nbroadcasts:\n  rate: 1000/s\n".write(toFile: folder.file("config.yaml"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test func sendsListsAndResumesByID() async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        try "# team\nuser:news\n\nuser:nobody\n".write(toFile: folder.file("team.txt"), atomically: true, encoding: .utf8)
        let first = await Self.run(["broadcast", "--bot", "news", "--to", "user:news", "--to-file", "team.txt",
                                    "--text", "Hi {{recipient.id}}", "--id", "week-1"], in: folder)
        // A failed recipient fails the command: a script must be able to tell.
        #expect(first.status == 1)
        #expect(first.stderr == "error: 1 of 2 recipients failed (see 'parley broadcasts --failed week-1')\n")
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "broadcast week-1: 2 recipients")
        #expect(lines.last?.hasPrefix("broadcast week-1 (news): 1 sent, 1 failed, 0 pending of 2 in ") == true)
        #expect(lines.last?.hasSuffix("failures: 1× notFound: no such user") == true)

        let again = await Self.run(["broadcast", "--bot", "news", "--to", "user:news", "--text", "Hi", "--id", "week-1"], in: folder)
        #expect(again.status == 1)
        #expect(again.stdout.hasPrefix("broadcast week-1 exists: resuming, 0 of 2 pending\n"))

        let list = await Self.run(["broadcasts"], in: folder)
        #expect(list.status == 0)
        #expect(list.stdout.hasPrefix("week-1  bot news  finished  1 sent, 1 failed, 0 pending of 2 (100%)  cli  "))
    }

    @Test(arguments: [
        (["broadcast", "--to", "user:a", "--text", "hi"], "error: option '--bot' is required"),
        (["broadcast", "--bot", "news", "--text", "hi"], "error: give at least one '--to' target or a '--to-file'"),
        (["broadcast", "--bot", "news", "--to", "user:a"], "error: option '--text' is required"),
        (["broadcast", "--bot", "news", "--to", "user:a", "--text", "hi", "--rate", "fast"],
         "error: option '--rate': invalid rate 'fast': expected COUNT/UNIT with a unit of s, m or h, like 20/s or 600/m"),
    ])
    func usageErrors(arguments: [String], message: String) async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        let run = await Self.run(arguments, in: folder)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix(message + "\nusage: parley broadcast "))
    }

    @Test func badRecipientsNameFileAndLine() async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        try "user:a\nalice\n".write(toFile: folder.file("r.txt"), atomically: true, encoding: .utf8)
        let run = await Self.run(["broadcast", "--bot", "news", "--to-file", "r.txt", "--text", "hi"], in: folder)
        #expect(run.status == 1)
        #expect(run.stderr == "error: r.txt:2: invalid target 'alice': expected user:ID or group:ID\n")
        #expect(await Self.run(["broadcasts"], in: folder).stdout == "no broadcasts\n")
    }

    /// A config that is not YAML, or not a valid config, is reported as `parley check`
    /// reports it (file, line, column), not as a storage failure; nothing is opened.
    @Test(arguments: [
        (["broadcasts"], "storage:\n  path: [unclosed\n"),
        (["broadcasts"], "broadcasts:\n  rate: fast\n"),
        (["broadcast", "--bot", "news", "--to", "user:a", "--text", "hi"], "storage: {path\n"),
    ])
    func badConfigIsReportedAsConfigErrors(arguments: [String], config: String) async throws {
        let folder = try Self.folder()
        defer { folder.remove() }
        try config.write(toFile: folder.file("config.yaml"), atomically: true, encoding: .utf8)
        let run = await Self.run(arguments, in: folder)
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("config.yaml:"))
        #expect(run.stderr.contains(": error: "))
        #expect(!run.stderr.contains("storage at"))
        #expect(!FileManager.default.fileExists(atPath: folder.file(".parley")))
    }
}
