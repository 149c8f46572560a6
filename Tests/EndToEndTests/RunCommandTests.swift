import Foundation
@testable import ParleyCLI
import ParleyBots
import YAMLCoding
import Testing
import ParleyTesting
import ParleyHTTP

/// `parley run`: starts every bot with one log line each and shuts down cleanly on SIGTERM.
@Suite(.serialized) struct RunCommandTests {
    @Test func runsUntilSIGTERMAndShutsDownCleanly() async throws {
        let folder = try ChatCommandTests.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try "storage:\n  path: state/parley.db\nlog:\n  level: info\n  format: text\nhttp:\n  listen: 127.0.0.1:0\n"
            .write(to: folder.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
        let output = CapturedOutput()
        // Under systemd (Type=notify): READY=1 once the bots are connected, STOPPING=1 at SIGTERM.
        let notify = try FakeNotifySocket()
        let context = CommandContext(output: output, environment: ["NOTIFY_SOCKET": notify.path], currentDirectory: folder.path,
                                     input: ScriptedInput([]))
        let run = Task { await ParleyCommand.main(["run"], context: context) }
        try await withTimeout("host start") {
            // Bounded by the timeout; yields let the command make progress without sleeping.
            while !output.standardError.contains("host started") { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(notify.next() == "READY=1\nSTATUS=2 bots running")
        let url = try await checkListener(output)
        try await checkHangup(output, folder: folder)
        kill(getpid(), SIGTERM)
        let code = try await withTimeout("shutdown") { await run.value }
        #expect(code == 0)
        #expect(notify.next() == "STOPPING=1\nSTATUS=shutting down")
        do {
            _ = try await Self.get(url + "/healthz")
            Issue.record("the listener still answers after the run ended")
        } catch {}
        let lines = output.standardError.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains(" bot started ") }.count == 2)
        #expect(lines.contains { $0.contains("info echo bot started") })
        #expect(lines.contains { $0.contains("info support bot started commands=11 flows=1 triggers=4") })
        #expect(lines.contains { $0.contains("host started bots=2 storage=state/parley.db transport=local") })
        #expect(lines.contains { $0.hasSuffix("shutting down") })
        #expect(lines.filter { $0.hasSuffix("bot stopped") }.count == 2)
        for file in ["parley.db", "parley.support.db", "parley.echo.db"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("state/\(file)").path), "\(file)")
        }
    }

    /// `http.listen`: one log line with the address and `/healthz` answers while the bots run;
    /// a second run on the same address stops before it starts. (Within the SIGTERM test: a
    /// second signal source in one test process is not reliably delivered on Linux.)
    func checkListener(_ output: CapturedOutput) async throws -> String {
        let line = try #require(output.standardError.split(separator: "\n").first { $0.contains(" listening url=") })
        let url = try #require(line.split(separator: "url=").last.map(String.init))
        #expect(url.hasPrefix("http://127.0.0.1:"))
        #expect(try await Self.get(url + "/healthz").status == 200)
        let second = try ChatCommandTests.makeFolder()
        defer { try? FileManager.default.removeItem(at: second) }
        let port = try #require(URLComponents(string: url)?.port)
        try "storage: { path: state/parley.db }\nhttp: { listen: \"127.0.0.1:\(port)\" }\n"
            .write(to: second.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
        let refused = CapturedOutput()
        let code = try await withTimeout("second run") {
            await ParleyCommand.main(["run"], context: CommandContext(output: refused, environment: [:], currentDirectory: second.path,
                                                                       input: ScriptedInput([])))
        }
        #expect(code == 1)
        #expect(refused.standardError.contains("error: http.listen: cannot listen on 127.0.0.1:\(port): Address already in use"))
        #expect(!refused.standardError.contains("host started"))
        return url
    }

    /// SIGHUP (`systemctl reload`) reloads: a changed bot file is swapped in, logged.
    func checkHangup(_ output: CapturedOutput, folder: URL) async throws {
        let echo = folder.appendingPathComponent("bots/echo.yaml")
        try (try String(contentsOf: echo, encoding: .utf8) + "\ncommands:\n  ping: { reply: pong }\n").write(to: echo, atomically: true, encoding: .utf8)
        kill(getpid(), SIGHUP)
        try await withTimeout("reload") {
            while !output.standardError.contains(" reloaded ") { try Task.checkCancellation(); await Task.yield() }
        }
        let lines = output.standardError.split(separator: "\n")
        #expect(lines.contains { $0.hasSuffix("reload asked (SIGHUP)") })
        #expect(lines.contains { $0.contains("info reloaded added=\"\" changed=echo ") && $0.contains(" result=ok") }, "\(lines)")
    }

    static func get(_ url: String) async throws -> HTTPResponse {
        try await withTimeout {
            try await HTTPClient().send(HTTPRequest(method: "GET", url: url, headers: [], body: nil, timeout: .seconds(5), responseLimit: 1 << 16))
        }
    }
}

/// Lines "typed at a terminal": `parley run` opens the console for them.
final class TerminalInput: LineInput {
    let script: ScriptedInput
    init(_ lines: [String]) { script = ScriptedInput(lines) }
    var isTerminal: Bool { true }
    func nextLine() async -> String? { await script.nextLine() }
}

extension RunCommandTests {
    @Test func atATerminalRunOpensTheConsoleAndQuitEndsIt() async throws {
        let folder = try ChatCommandTests.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = CapturedOutput()
        let context = CommandContext(output: output, environment: [:], currentDirectory: folder.path,
                                     input: TerminalInput(["/switch support", "/echo from the terminal", "/quit"]))
        let code = try await withTimeout("parley run") { await ParleyCommand.main(["run"], context: context) }
        #expect(code == 0)
        #expect(output.standardOutput.contains("(now talking to Support)\nyou> Support: from the terminal\nyou> "))
        #expect(output.standardError.contains("shutting down"))
    }
}

extension RunCommandTests {
    @Test func theConsoleOpensOnTheFirstBotWithAGreetingAndLogLinesGoToAFile() async throws {
        let folder = try ChatCommandTests.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try "storage:\n  path: state/parley.db\n".write(to: folder.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
        // `announcer` sorts first but only broadcasts: a newcomer's "hello" would get nothing.
        try """
            name: Announcer
            schedules:
              - name: morning
                cron: "0 9 * * 1-5"
                broadcast: { to: ["user:alice"], send: { text: Good morning } }
            """.write(to: folder.appendingPathComponent("bots/announcer.yaml"), atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("bots/echo.yaml"))
        let output = CapturedOutput()
        let context = CommandContext(output: output, environment: [:], currentDirectory: folder.path,
                                     input: TerminalInput(["hello", "/quit"]))
        let code = try await withTimeout("parley run") { await ParleyCommand.main(["run"], context: context) }
        #expect(code == 0)
        #expect(output.standardOutput.hasPrefix("Talking to Support as you."), "\(output.standardOutput)")
        // Info lines are in the file, said once where; the terminal keeps the chat.
        #expect(output.standardError == "log lines go to state/parley.log (warnings and errors show here too)\n")
        let log = try String(contentsOf: folder.appendingPathComponent("state/parley.log"), encoding: .utf8)
        #expect(log.contains("host started bots=2 storage=state/parley.db transport=local"), "\(log)")
        #expect(log.contains("shutting down"))
    }

    @Test func theFirstBotIsTheMostWelcoming() throws {
        func bot(_ id: String, _ yaml: String) throws -> CompiledBot {
            let definition = try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: yaml, file: id)
            return try CompiledBot(id: id, definition: definition)
        }
        let quiet = try bot("a", "schedules: []\nfallback: [ { reply: x } ]")
        let commands = try bot("b", "commands: { ping: { reply: pong } }")
        let greets = try bot("c", "greeting: [ { reply: hi } ]")
        let greetsToo = try bot("d", "greeting: [ { reply: hi } ]")
        #expect(ChatConsole.firstBot([quiet, commands, greets, greetsToo])?.id == "c")
        #expect(ChatConsole.firstBot([quiet, commands])?.id == "b")
        #expect(ChatConsole.firstBot([quiet])?.id == "a")
        #expect(ChatConsole.firstBot([]) == nil)
    }
}

