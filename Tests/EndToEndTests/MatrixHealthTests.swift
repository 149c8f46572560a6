import Foundation
import Glibc
import ParleyBots
import ParleyHosting
import ParleyHTTP
import ParleyMatrix
import ParleyTesting
import Testing
import YAMLCoding

extension MatrixSerialTests {
    /// `/healthz` of a host on Synapse: 200 while it syncs, 503 once the homeserver is down
    /// (its long-poll fails at once when the server goes), 200 again after it is back.
    @Test func healthTurns503WhileTheHomeserverIsDownAnd200WhenItReturns() async throws {
        let bot = try await TestSynapse.register("healthy")
        let folder = try MatrixBotServer.deskFolder(account: bot, botFile: "name: Desk\ncommands: { ping: { reply: pong } }\n")
        let host = try await MatrixBotServer.runningHost(folder)
        await host.start()
        let listener = try #require(try OperationsListener.start(host, http: HTTPConfig(listen: Located(value: "127.0.0.1:0", mark: Mark(line: 1, column: 1)))))
        defer { listener.stop() }
        let url = listener.url + "/healthz"
        // Bounded: 400 polls of 0.3 s, each request 5 s at most (Synapse back up and the bot's
        // reconnect backoff take tens of seconds).
        func waitFor(_ status: Int, _ what: String) async throws -> String {
            var last = ""
            for _ in 0..<400 {
                let answer = try await HTTPClient().send(HTTPRequest(method: "GET", url: url, headers: [], body: nil, timeout: .seconds(5),
                                                                     responseLimit: 1 << 16))
                last = String(decoding: answer.body, as: UTF8.self)
                if answer.status == status { return last }
                try await Task.sleep(for: .milliseconds(300))
            }
            Issue.record("\(what): /healthz never answered \(status); last: \(last)")
            return last
        }
        #expect(try await waitFor(200, "at start").contains(#""status":"ok""#))
        let script = MatrixBotServer.root.path + "/scripts/matrix-synapse-restart"
        let outage = Task.detached { Self.spawnAndWait(["/bin/sh", "-c", "\"$0\" 8 > \"$1\" 2>&1", script, folder + "/restart.log"]) }
        let degraded = try await waitFor(503, "homeserver down")
        #expect(degraded.contains(#""status":"degraded""#))
        #expect(degraded.contains(#""status":"reconnecting""#))
        let restarted = await outage.value
        #expect(restarted == 0, "\((try? String(contentsOfFile: folder + "/restart.log", encoding: .utf8)) ?? "")")
        #expect(try await waitFor(200, "homeserver back").contains(#""status":"ok""#))
        await host.shutdown()
    }

    /// Runs `argv` and waits for it with waitpid, bounded by the script's own time limits (it
    /// stops Synapse for 8 s and waits at most 60 s for it to come back). Not `Process`: with
    /// the restarted Synapse daemonized from inside it, Foundation never reaped the shell.
    static func spawnAndWait(_ argv: [String]) -> Int32 {
        var pid: pid_t = 0
        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        guard posix_spawn(&pid, argv[0], nil, nil, &arguments, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }
}
