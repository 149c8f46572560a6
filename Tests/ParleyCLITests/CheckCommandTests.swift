import Foundation
import Testing
import ParleyCLI

/// Runs `parley` in-process with captured output, as a user would from `directory`.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    init(_ arguments: [String], in directory: String = Run.fixtures, environment: [String: String] = [:]) async {
        let output = CapturedOutput()
        let context = CommandContext(output: output, environment: environment, currentDirectory: directory)
        status = await ParleyCommand.main(arguments, context: context)
        stdout = output.standardOutput
        stderr = output.standardError
    }
}

@Suite struct CheckCommandTests {
    @Test func brokenFolderReportsEveryProblemOfEveryFile() async throws {
        let expected = try String(contentsOfFile: Run.fixtures + "/broken-check.expected", encoding: .utf8)
        let run = await Run(["check"], in: Run.fixtures + "/broken")
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr == expected)
    }

    @Test func pathsStayAsTheUserWroteThem() async {
        let run = await Run(["check", "--config", "broken/config.yaml"])
        #expect(run.status == 1)
        let firstLines = run.stderr.split(separator: "\n").prefix(4)
        #expect(firstLines == [
            "broken/bots/binary.yaml:1:1: error: not a text file (it contains NUL bytes): expected UTF-8 YAML",
            "broken/bots/empty.yaml:1:1: error: the bot does nothing: expected at least one of commands, triggers, flows, schedules, greeting or fallback",
            "broken/bots/folder.yaml:1:1: error: is a directory, expected a YAML file",
            "broken/bots/hidden.yaml:3:1: error: unknown key 'falback', did you mean 'fallback'?",
        ])
        #expect(run.stderr.hasSuffix("check failed: 26 errors in 11 files\n"))
    }

    @Test func examplesPass() async {
        let run = await Run(["check"], in: Run.repositoryRoot)
        #expect(run.stderr == "")
        #expect(run.stdout == "ok: 2 bots, 8 commands, 5 triggers, 2 flows, 2 schedules, 29 tests\n")
        #expect(run.status == 0)
    }

    @Test func missingConfigIsAnErrorNotACrash() async {
        let run = await Run(["check", "-c", "nowhere/config.yaml"])
        #expect(run.status == 1)
        #expect(run.stderr == """
            nowhere/bots:1:1: error: cannot list the bots folder: expected a folder of bot files (set 'bots:' in nowhere/config.yaml)
            nowhere/config.yaml:1:1: error: no such file
            check failed: 2 errors in 2 files

            """)
    }

    @Test func configThatIsADirectory() async {
        let run = await Run(["check", "--config=broken/bots"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("broken/bots:1:1: error: is a directory, expected a YAML file\n"))
    }
}

@Suite struct RecipientFileCheckTests {
    @Test func missingAndInvalidRecipientFiles() async {
        let run = await Run(["check"], in: Run.fixtures + "/recipients")
        #expect(run.status == 1)
        #expect(run.stderr == """
            bots/news.yaml:11:16: error: cannot read recipients file 'bots/missing.txt': no such file
                  to_file: missing.txt
                           ^
            bots/news.yaml:16:13: error: cannot read recipients file 'bots/gone.txt': no such file
                import: gone.txt
                        ^
            bots/subscribers.txt:5:1: error: invalid target 'alice': expected user:ID or group:ID
            alice
            ^
            bots/subscribers.txt:6:1: error: invalid target 'room:7': expected user:ID or group:ID
            room:7
            ^
            check failed: 4 errors in 2 files

            """)
    }
}

@Suite struct SpecialFileTests {
    @Test func devicesAreRefusedAndLinksToFilesFollowed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("bots"), withIntermediateDirectories: true)
        try "bots: bots\n".write(to: folder.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
        try "commands:\n  ping: { reply: pong }\n".write(to: folder.appendingPathComponent("real.yaml"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/bots/linked.yaml", withDestinationPath: "../real.yaml")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/bots/zero.yaml", withDestinationPath: "/dev/zero")
        let run = await Run(["check"], in: folder.path)
        #expect(run.status == 1)
        #expect(run.stderr == """
            bots/zero.yaml:1:1: error: not a regular file, expected a YAML file
            check failed: 1 error in 1 file

            """)
        try FileManager.default.removeItem(atPath: folder.path + "/bots/zero.yaml")
        let clean = await Run(["check"], in: folder.path)
        #expect(clean.stdout == "ok: 1 bot, 1 command, 0 triggers, 0 flows, 0 schedules, 0 tests\n")
    }
}

@Suite struct DocumentedExampleTests {
    @Test func yamlContractExamplesPass() async {
        let run = await Run(["check"], in: Run.fixtures + "/documented",
                            environment: ["SUPPORT_PASSWORD": "secret", "NEWS_TOKEN": "token"])
        #expect(run.stderr == "")
        #expect(run.stdout == "ok: 1 bot, 4 commands, 2 triggers, 1 flow, 1 schedule, 4 tests\n")
    }

    @Test func missingSecretsAreReportedWhereTheyAreUsed() async {
        let run = await Run(["check"], in: Run.fixtures + "/documented")
        #expect(run.status == 1)
        #expect(run.stderr.contains("config.yaml:8:54: error: environment variable 'SUPPORT_PASSWORD' is not set"))
        #expect(run.stderr.hasSuffix("check failed: 2 errors in 1 file\n"))
    }
}

@Suite struct SharedStorageCheckTests {
    /// The embedded hub lives in one process: a PostgreSQL URL (for several) is refused there,
    /// naming the key, and its password never printed.
    @Test func aPostgresURLOnTheEmbeddedHubIsAnError() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("bots"), withIntermediateDirectories: true)
        try "storage:\n  url: \"postgres://parley:${PG_PASSWORD}@127.0.0.1:5432/parley\"\n"
            .write(to: folder.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
        try "commands:\n  ping: { reply: pong }\n".write(to: folder.appendingPathComponent("bots/ping.yaml"), atomically: true, encoding: .utf8)
        let run = await Run(["check"], in: folder.path, environment: ["PG_PASSWORD": "hunter2"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("""
            config.yaml:2:8: error: storage 'url' (PostgreSQL, shared by several processes) needs a transport that several processes \
            can reach, like kind: matrix; the embedded hub (transport kind local) lives in one process: use storage 'path' with it
            """))
        #expect(!run.stderr.contains("hunter2"))
    }
}

@Suite struct ClusterCommandTests {
    @Test func aSQLiteStoreHasNoCluster() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cluster-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "storage: { path: state/parley.db }\n".write(to: folder.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
        let run = await Run(["cluster"], in: folder.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("a SQLite file: one process runs every bot; several processes share a PostgreSQL database (storage.url)"))
    }
}
