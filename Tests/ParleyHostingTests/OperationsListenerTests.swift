import Foundation
import ParleyBots
import ParleyCore
import ParleyHosting
import ParleyHTTP
import ParleyTesting
import Testing
import YAMLCoding

/// The operations listener through real sockets on loopback: what each endpoint answers, and
/// who may use the admin API.
@Suite struct OperationsListenerTests {
    static let token = "t0ken-\(UUID().uuidString)"

    /// The metrics fixture's host with a listener on a free port (`token`: the admin token).
    static func listening(token: String? = Self.token, users: [String] = ["alice", "bob"]) async throws -> (RunningHost, ChatClient, OperationsListener) {
        let (running, alice) = try await HostMetricsTests.host(users: users)
        let http = HTTPConfig(listen: Self.located("127.0.0.1:0"), adminToken: token.map(Self.located))
        let listener = try #require(try OperationsListener.start(running, http: http))
        return (running, alice, listener)
    }

    /// Ends what `listening` started.
    static func close(_ running: RunningHost, _ alice: ChatClient, _ listener: OperationsListener) async {
        listener.stop()
        await alice.close()
        await running.shutdown()
    }

    static func located(_ text: String) -> Located<String> { Located(value: text, mark: Mark(line: 1, column: 1)) }

    /// A request to `url` (a POST without `body` sends `{}`).
    static func get(_ url: String, token: String? = nil, method: String = "GET", body: String? = nil) async throws -> HTTPResponse {
        let headers = token.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? []
        return try await withTimeout {
            try await HTTPClient().send(HTTPRequest(method: method, url: url, headers: headers,
                                                    body: (body ?? (method == "POST" ? "{}" : nil)).map { Data($0.utf8) },
                                                    timeout: .seconds(10), responseLimit: 1 << 20))
        }
    }

    static func json(_ response: HTTPResponse) throws -> JSONValue {
        try JSONValue.parse(response.body)
    }

    @Test func healthIs200WhenEveryBotIsConnectedAnd503WithTheReasonWhenNot() async throws {
        let (running, alice, listener) = try await Self.listening()
        let healthy = try await Self.get(listener.url + "/healthz")
        #expect(healthy.status == 200)
        #expect(healthy.header("content-type") == "application/json")
        #expect(try Self.json(healthy) == ["status": "ok", "bots": ["desk": ["ok": true, "status": "connected"]]])
        running.metrics.connection(bot: "desk", .reconnecting)
        let degraded = try await Self.get(listener.url + "/healthz")
        #expect(degraded.status == 503)
        #expect(try Self.json(degraded) == ["status": "degraded", "bots": ["desk": ["ok": false, "status": "reconnecting"]]])
        await Self.close(running, alice, listener)
    }

    @Test func metricsAreTheTextFormatAndMoveAsMessagesFlow() async throws {
        let (running, alice, listener) = try await Self.listening()
        try await HostMetricsTests.say("/ping", alice, running)
        let first = try await Self.get(listener.url + "/metrics")
        #expect(first.status == 200)
        #expect(first.header("content-type") == "text/plain; version=0.0.4; charset=utf-8")
        let text = String(decoding: first.body, as: UTF8.self)
        #expect(HostMetricsTests.value(text, #"parley_messages_received_total{bot="desk"}"#) == 1)
        #expect(try await Promtool.check(text) == "")
        try await HostMetricsTests.say("/ping", alice, running)
        let second = String(decoding: try await Self.get(listener.url + "/metrics").body, as: UTF8.self)
        #expect(HostMetricsTests.value(second, #"parley_messages_received_total{bot="desk"}"#) == 2)
        await Self.close(running, alice, listener)
    }

    @Test func theAdminAPIWantsTheBearerToken() async throws {
        let (running, alice, listener) = try await Self.listening()
        let bots = listener.url + "/api/v1/bots"
        let without = try await Self.get(bots)
        #expect(without.status == 401)
        #expect(without.header("www-authenticate") == #"Bearer realm="parley""#)
        #expect(try Self.json(without) == ["error": "missing or wrong bearer token"])
        #expect(try await Self.get(bots, token: Self.token + "x").status == 401)
        #expect(try await Self.get(bots, token: String(Self.token.dropLast())).status == 401)
        let with = try await Self.get(bots, token: Self.token)
        #expect(with.status == 200)
        #expect(try Self.json(with) == ["bots": [[
            "id": "desk", "name": "Desk", "state": "running", "health": "connected",
            "commands": ["/human", "/news", "/order", "/ping"], "flows": ["order": ["number"]], "triggers": 0,
            "schedules": [], "queues": ["agents"],
        ]]])
        #expect(try await Self.get(listener.url + "/api/v1/nothing", token: Self.token).status == 404)
        #expect(try await Self.get(bots, token: Self.token, method: "POST").status == 405)
        await Self.close(running, alice, listener)
    }

    @Test func ticketsAndBroadcastsAreListedWithTheirState() async throws {
        let (running, alice, listener) = try await Self.listening()
        let api = listener.url + "/api/v1/"
        #expect(try Self.json(try await Self.get(api + "tickets", token: Self.token)) == ["tickets": []])
        #expect(try Self.json(try await Self.get(api + "broadcasts", token: Self.token)) == ["broadcasts": []])
        // The news first: once handed off, alice's messages go to the agents.
        try await HostMetricsTests.say("/news", alice, running)
        try await HostMetricsTests.say("/human", alice, running)
        let tickets = try Self.json(try await Self.get(api + "tickets?queue=agents", token: Self.token))
        let ticket = try #require(tickets["tickets"]?.arrayValue?.first)
        #expect(tickets["tickets"]?.arrayValue?.count == 1)
        #expect(ticket["number"] == 1 && ticket["queue"] == "agents" && ticket["user"] == "alice" && ticket["status"] == "open")
        #expect(ticket["opened"]?.stringValue?.hasPrefix("20") == true)
        #expect(try Self.json(try await Self.get(api + "tickets?status=resolved", token: Self.token)) == ["tickets": []])
        #expect(try Self.json(try await Self.get(api + "tickets?queue=elsewhere", token: Self.token)) == ["tickets": []])
        let bad = try await Self.get(api + "tickets?status=closed", token: Self.token)
        #expect(bad.status == 400)
        #expect(try Self.json(bad) == ["error": "unknown status 'closed': expected open, taken, resolved or all"])
        #expect(try await Self.get(api + "tickets?limit=0", token: Self.token).status == 400)
        // `say` waited until the host was idle: the job has run.
        let job = try Self.json(try await Self.get(api + "broadcasts", token: Self.token))["broadcasts"]?.arrayValue?.first
        #expect(job?["bot"] == "desk" && job?["state"] == "finished" && job?["total"] == 2 && job?["sent"] == 2 && job?["pending"] == 0)
        await Self.close(running, alice, listener)
    }

    /// Hostile clients at the listener (600 idle connections, more than it takes; garbage; a
    /// header flood; a declared 100 MB body) while a customer talks to the bot: every message
    /// is answered, the probe still answers once they are gone, memory stays bounded.
    @Test func aFloodAtTheListenerLeavesTheBotsAnswering() async throws {
        let (running, alice, listener) = try await Self.listening()
        let port = try #require(URLComponents(string: listener.url)?.port)
        let before = residentKilobytes()
        let idle = await offPool { (0..<600).compactMap { _ in try? RawConnection(port: port, timeoutSeconds: 2) } }
        let refusals = await offPool {
            var answers: [Int] = []
            for attack in ["GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\n" + String(repeating: "X-Flood: y\r\n", count: 5_000) + "\r\n",
                           "POST /api/v1/bots HTTP/1.1\r\nHost: x\r\nContent-Length: 104857600\r\n\r\n"] {
                guard let connection = try? RawConnection(port: port, timeoutSeconds: 5) else { answers.append(-1); continue }
                connection.send(attack)
                answers.append(connection.readAnswer()?.status ?? 0)
                connection.close()
            }
            return answers
        }
        for _ in 0..<20 { try await HostMetricsTests.say("/ping", alice, running) }
        let text = await running.metrics.registry.exposition()
        #expect(HostMetricsTests.value(text, #"parley_messages_received_total{bot="desk"}"#) == 20)
        #expect(HostMetricsTests.value(text, #"parley_messages_sent_total{bot="desk"}"#) == 20)
        // With 512 connections held, a hostile one is refused (0: closed without an answer) or answered with an error.
        #expect(refusals.allSatisfy { $0 == 0 || (400..<500).contains($0) }, "\(refusals)")
        for connection in idle { connection.close() }
        var answered = false
        // Bounded: the server sees the closes within its poll; 100 tries.
        for _ in 0..<100 where !answered {
            answered = (try? await Self.get(listener.url + "/healthz").status) == 200
        }
        #expect(answered)
        #expect(residentKilobytes() - before < 64 * 1024, "grew by \(residentKilobytes() - before) KB")
        await Self.close(running, alice, listener)
    }

    @Test func reloadThroughTheAPIAnswersWithTheErrorsOrWhatChanged() async throws {
        let (running, alice, folder) = try await HostMetricsTests.hostInFolder()
        let http = HTTPConfig(listen: Self.located("127.0.0.1:0"), adminToken: Self.located(Self.token))
        let listener = try #require(try OperationsListener.start(running, http: http))
        let url = listener.url + "/api/v1/reload"
        #expect(try await Self.get(url, method: "POST").status == 401)
        #expect(try await Self.get(url, token: Self.token).status == 405)
        let file = folder + "/bots/desk.yaml"
        let desk = try String(contentsOfFile: file, encoding: .utf8)
        try (desk + "\nunknown_section: 1\n").write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try await Self.get(url, token: Self.token, method: "POST")
        #expect(refused.status == 422)
        let errors = try Self.json(refused)["errors"]
        #expect(errors?.arrayValue?.first?.stringValue?.hasPrefix("bots/desk.yaml:14:1: error: unknown key 'unknown_section'") == true,
                "\(String(decoding: refused.body, as: UTF8.self))")
        try await HostMetricsTests.say("/ping", alice, running)
        try desk.replacingOccurrences(of: "reply: pong", with: "reply: pong!").write(toFile: file, atomically: true, encoding: .utf8)
        let applied = try await Self.get(url, token: Self.token, method: "POST")
        #expect(applied.status == 200)
        let report = try Self.json(applied)
        #expect(report["result"] == "ok")
        #expect(report["changed"] == ["desk"])
        #expect(report["added"] == [] && report["removed"] == [] && report["restart_needed"] == [])
        let metrics = String(decoding: try await Self.get(listener.url + "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"parley_config_reloads_total{result="invalid"} 1"#))
        #expect(metrics.contains(#"parley_config_reloads_total{result="ok"} 1"#))
        await Self.close(running, alice, listener)
    }

    @Test func withoutATokenTheAPIIsOffAndTheRestAnswers() async throws {
        let (running, alice, listener) = try await Self.listening(token: nil)
        let answer = try await Self.get(listener.url + "/api/v1/bots", token: "anything")
        #expect(answer.status == 403)
        #expect(try Self.json(answer) == ["error": "the admin API is off: set http.admin_token in config.yaml"])
        #expect(try await Self.get(listener.url + "/healthz").status == 200)
        #expect(try await Self.get(listener.url + "/nowhere").status == 404)
        #expect(try await Self.get(listener.url + "/healthz", method: "POST").status == 405)
        await Self.close(running, alice, listener)
    }

    @Test func anAddressInUseIsAnErrorNamingIt() async throws {
        let (running, alice, listener) = try await Self.listening()
        let port = try #require(URLComponents(string: listener.url)?.port)
        let http = HTTPConfig(listen: Self.located("127.0.0.1:\(port)"))
        #expect(throws: HostError.self) { try OperationsListener.start(running, http: http) }
        do {
            _ = try OperationsListener.start(running, http: http)
        } catch {
            #expect(error.description == "http.listen: cannot listen on 127.0.0.1:\(port): Address already in use")
        }
        await Self.close(running, alice, listener)
    }
}
