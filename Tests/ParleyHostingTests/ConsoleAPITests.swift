import Foundation
import ParleyBots
import ParleyCore
import ParleyHosting
import ParleyHTTP
import ParleyTesting
import Testing
import YAMLCoding

/// The agents' console API through the listener on loopback, on the embedded hub (the metrics
/// fixture's `desk`, which hands `/human` off to `agents` with the note "help"): signing in,
/// who may do what, a ticket's details, the actions, and the live event stream read over a raw
/// socket.
@Suite struct ConsoleAPITests {
    typealias Listener = OperationsListenerTests

    /// nina works `agents`; omar only `supervisors`, a queue no ticket here is in.
    static let nina = "nina-token-\(UUID().uuidString)"
    static let omar = "omar-token-\(UUID().uuidString)"

    static func listening(storagePath: String? = nil) async throws -> (RunningHost, ChatClient, OperationsListener) {
        let (running, alice) = try await HostMetricsTests.host(storagePath: storagePath)
        let http = try YAMLDecoder(environment: [:]).decode(HTTPConfig.self, from: """
            listen: 127.0.0.1:0
            agents:
              nina: { token: "\(nina)", queues: [agents] }
              omar: { token: "\(omar)", queues: [supervisors] }
            """, file: "config.yaml")
        return (running, alice, try #require(try OperationsListener.start(running, http: http)))
    }

    static func request(_ url: String, method: String = "GET", headers: [(name: String, value: String)] = [],
                        body: String? = nil) async throws -> HTTPResponse {
        try await withTimeout {
            try await HTTPClient().send(HTTPRequest(method: method, url: url, headers: headers, body: body.map { Data($0.utf8) },
                                                    timeout: .seconds(10), responseLimit: 1 << 20))
        }
    }

    static func bearer(_ token: String) -> [(name: String, value: String)] { [(name: "Authorization", value: "Bearer \(token)")] }

    /// Signs in with `token`: the `Cookie` header's value and the CSRF value to send with it.
    static func signIn(_ base: String, token: String) async throws -> (cookie: String, csrf: String) {
        let answer = try await request(base + "/console/api/session", method: "POST", body: #"{"token": "\#(token)"}"#)
        #expect(answer.status == 200)
        let csrf = try #require(try Listener.json(answer)["csrf"]?.stringValue)
        let setCookie = try #require(answer.header("set-cookie"))
        return (String(setCookie.prefix { $0 != ";" }), csrf)
    }

    /// An event's type and JSON data (`event: NAME\ndata: JSON`); nil for a comment.
    static func event(_ text: String?) -> (name: String, data: JSONValue)? {
        guard let text else { return nil }
        var name: String?, data = ""
        for line in text.split(separator: "\n") {
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data += line.dropFirst(6) }
        }
        guard let name, let json = try? JSONValue.parse(Data(data.utf8)) else { return nil }
        return (name, json)
    }

    @Test func signingInWantsAnAgentsTokenAndSetsAStrictCookie() async throws {
        let (running, alice, listener) = try await Self.listening()
        let session = listener.url + "/console/api/session"
        let answer = try await Self.request(session, method: "POST", body: #"{"token": "\#(Self.nina)"}"#)
        #expect(answer.status == 200)
        let json = try Listener.json(answer)
        #expect(json["agent"] == "nina" && json["queues"] == ["agents"])
        #expect(json["csrf"]?.stringValue?.count == 43)
        let cookie = try #require(answer.header("set-cookie"))
        #expect(cookie.hasPrefix("parley_console=") && cookie.hasSuffix("; HttpOnly; SameSite=Strict; Path=/console"))
        #expect(cookie.prefix { $0 != ";" }.count == "parley_console=".count + 43)

        let wrong = try await Self.request(session, method: "POST", body: #"{"token": "\#(Self.nina)x"}"#)
        #expect(wrong.status == 401)
        #expect(wrong.header("set-cookie") == nil)
        #expect(try Listener.json(wrong) == ["error": "wrong agent token"])
        #expect(try await Self.request(session, method: "POST", body: "{}").status == 400)
        #expect(try await Self.request(session, method: "POST", body: #"{"token": "\#(Self.nina)", "agent": "nina"}"#).status == 400)
        #expect(try await Self.request(session).status == 405)
        // The page and its assets (ParleyWebAssets), under the Content-Security-Policy.
        let page = try await Self.request(listener.url + "/console")
        #expect(page.status == 200)
        #expect(page.header("content-type") == "text/html; charset=utf-8")
        #expect(page.header("content-security-policy")?.hasSuffix("script-src 'self'; connect-src 'self'; frame-ancestors 'self'") == true)
        #expect(String(decoding: page.body, as: UTF8.self).contains("<script src=\"/console/assets/console.js\" defer></script>"))
        #expect(try await Self.request(listener.url + "/console/assets/console.js").header("content-type") == "text/javascript; charset=utf-8")
        #expect(try await Self.request(listener.url + "/console/assets/console.css").header("content-type") == "text/css; charset=utf-8")
        for path in ["/console/assets/widget.js", "/console/assets/nothing.css", "/console/elsewhere"] {
            #expect(try await Self.request(listener.url + path).status == 404, "\(path)")
        }
        // The admin API and the rest answer as before.
        #expect(try await Self.request(listener.url + "/healthz").status == 200)
        #expect(try await Self.request(listener.url + "/api/v1/bots").status == 403)
        await Listener.close(running, alice, listener)
    }

    @Test func aCookieNeedsTheCSRFHeaderABearerTokenDoesNot() async throws {
        let (running, alice, listener) = try await Self.listening()
        let (cookie, csrf) = try await Self.signIn(listener.url, token: Self.nina)
        let ticket = listener.url + "/console/api/tickets/agents/1"
        let bare = try await Self.request(ticket, headers: [(name: "Cookie", value: cookie)])
        #expect(bare.status == 403)
        #expect(try Listener.json(bare) == ["error": "the X-Parley-CSRF header is missing: send the csrf value the sign-in answered"])
        #expect(try await Self.request(ticket, headers: [(name: "Cookie", value: cookie), (name: "X-Parley-CSRF", value: csrf + "x")]).status == 403)
        let signedIn = [(name: "Cookie", value: cookie), (name: "X-Parley-CSRF", value: csrf)]
        // No ticket yet: past the checks, it is not found.
        #expect(try await Self.request(ticket, headers: signedIn).status == 404)
        #expect(try await Self.request(ticket, headers: Self.bearer(Self.nina)).status == 404)
        #expect(try await Self.request(ticket).status == 401)
        #expect(try await Self.request(ticket, headers: Self.bearer(Self.nina + "x")).status == 401)
        #expect(try await Self.request(ticket, headers: [(name: "Cookie", value: "parley_console=forged")]).status == 401)
        // A POST with the cookie alone is refused too, and changes nothing.
        try await HostMetricsTests.say("/human", alice, running)
        #expect(try await Self.request(ticket + "/take", method: "POST", headers: [(name: "Cookie", value: cookie)]).status == 403)
        #expect(try Listener.json(try await Self.request(ticket, headers: signedIn))["status"] == "open")

        let out = try await Self.request(listener.url + "/console/api/session", method: "DELETE", headers: signedIn)
        #expect(out.status == 204)
        #expect(out.header("set-cookie") == "parley_console=; HttpOnly; SameSite=Strict; Path=/console; Max-Age=0")
        #expect(try await Self.request(ticket, headers: signedIn).status == 401)
        #expect(try await Self.request(ticket, headers: Self.bearer(Self.nina)).status == 200)
        await Listener.close(running, alice, listener)
    }

    @Test func aTicketOfAnotherAgentsQueueIs403ForEveryRequest() async throws {
        let (running, alice, listener) = try await Self.listening()
        try await HostMetricsTests.say("/human", alice, running)
        let ticket = listener.url + "/console/api/tickets/agents/1"
        let omar = Self.bearer(Self.omar)
        let refused = try await Self.request(ticket, headers: omar)
        #expect(refused.status == 403)
        #expect(try Listener.json(refused) == ["error": "queue 'agents' is not one of agent 'omar''s queues"])
        for (verb, body) in [("take", "{}"), ("reply", #"{"text": "Hi"}"#), ("resolve", "{}")] {
            #expect(try await Self.request(ticket + "/" + verb, method: "POST", headers: omar, body: body).status == 403, "\(verb)")
        }
        // Also for a number that does not exist: the answer tells nothing of other queues.
        #expect(try await Self.request(listener.url + "/console/api/tickets/agents/9", headers: omar).status == 403)
        try await withTimeout { await running.host.waitUntilIdle() }
        let unchanged = try Listener.json(try await Self.request(ticket, headers: Self.bearer(Self.nina)))
        #expect(unchanged["status"] == "open" && unchanged["agent"] == nil)
        #expect(try AdminAPIActionsTests.received("alice", running).allSatisfy { $0 != "Hi" })
        await Listener.close(running, alice, listener)
    }

    /// The customer's card, the note and the conversation; then take, reply (the customer gets
    /// it from the bot) and resolve, each answering the ticket after.
    @Test func aTicketIsShownTakenAnsweredAndResolved() async throws {
        let (running, alice, listener) = try await Self.listening()
        try await HostMetricsTests.say("/ping", alice, running)
        try await HostMetricsTests.say("/human", alice, running)
        let ticket = listener.url + "/console/api/tickets/agents/1"
        let nina = Self.bearer(Self.nina)
        let shown = try Listener.json(try await Self.request(ticket, headers: nina))
        #expect(shown["number"] == 1 && shown["queue"] == "agents" && shown["bot"] == "desk" && shown["status"] == "open")
        #expect(shown["note"] == "help")
        #expect(shown["customer"]?["id"] == "alice" && shown["customer"]?["name"]?.stringValue?.isEmpty == false)
        let messages = try #require(shown["messages"]?.arrayValue)
        #expect(messages.map { [$0["from"], $0["text"]] } == [["customer", "/ping"], ["bot", "pong"], ["customer", "/human"]])
        #expect(messages[1]["name"] == "Desk" && messages[0]["time"]?.stringValue?.hasPrefix("20") == true)
        #expect(try await Self.request(listener.url + "/console/api/tickets/agents/x", headers: nina).status == 404)

        let taken = try await Self.request(ticket + "/take", method: "POST", headers: nina)
        #expect(taken.status == 200)
        #expect(try Listener.json(taken)["status"] == "taken" && Listener.json(taken)["agent"] == "nina")
        let replied = try await Self.request(ticket + "/reply", method: "POST", headers: nina, body: #"{"text": "Your refund is on its way."}"#)
        #expect(replied.status == 200)
        let last = try Listener.json(replied)["messages"]?.arrayValue?.last
        #expect(last?["from"] == "bot" && last?["text"] == "Your refund is on its way.")
        try await withTimeout { await running.host.waitUntilIdle() }
        #expect(try AdminAPIActionsTests.received("alice", running).last == "Your refund is on its way.")
        #expect(try await Self.request(ticket + "/reply", method: "POST", headers: nina, body: "{}").status == 400)

        let resolved = try await Self.request(ticket + "/resolve", method: "POST", headers: nina)
        #expect(resolved.status == 200)
        #expect(try Listener.json(resolved)["status"] == "resolved")
        let again = try await Self.request(ticket + "/take", method: "POST", headers: nina)
        #expect(again.status == 409)
        try await withTimeout { await running.host.waitUntilIdle() }
        try await HostMetricsTests.say("/ping", alice, running)
        #expect(try AdminAPIActionsTests.received("alice", running).last == "pong")
        await Listener.close(running, alice, listener)
    }

    /// With nothing kept on disk the bot's client keeps message ids only (as a Matrix bot's
    /// does): the conversation still comes, through the bot's connection.
    @Test func aMemoryHostShowsTheConversationToo() async throws {
        let (running, alice, listener) = try await Self.listening(storagePath: ":memory:")
        try await HostMetricsTests.say("/ping", alice, running)
        try await HostMetricsTests.say("/human", alice, running)
        let shown = try Listener.json(try await Self.request(listener.url + "/console/api/tickets/agents/1", headers: Self.bearer(Self.nina)))
        #expect(shown["messages"]?.arrayValue?.map { $0["text"] } == ["/ping", "pong", "/human"])
        #expect(shown["note"] == "help")
        await Listener.close(running, alice, listener)
    }

    /// Opened before the hand-off, the stream brings the ticket without a reconnect, then its
    /// change when it is taken, then the customer's next message.
    @Test func aHandOffAppearsOnTheOpenEventStream() async throws {
        let (running, alice, listener) = try await Self.listening()
        let port = try #require(URLComponents(string: listener.url)?.port)
        let stream = try EventStreamClient(port: port)
        defer { stream.close() }
        let head = await offPool { stream.get("/console/api/events", headers: "Authorization: Bearer \(Self.nina)\r\n") }
        #expect(head?.hasPrefix("http/1.1 200") == true)
        #expect(head?.contains("content-type: text/event-stream") == true)
        let opening = await offPool { [stream.nextEvent(), stream.nextEvent()] }.map(Self.event)
        #expect(opening.first??.name == "tickets" && opening.first??.data == ["tickets": []])
        #expect(opening.last??.name == "broadcasts" && opening.last??.data == ["broadcasts": []])

        try await HostMetricsTests.say("/human", alice, running)
        let opened = await offPool { Self.nextTicket(on: stream) { $0["note"] == "help" } }
        #expect(opened?["number"] == 1 && opened?["status"] == "open" && opened?["customer"]?["id"] == "alice")
        #expect(opened?["messages"]?.arrayValue?.first?["text"] == "/human")

        #expect(try await Self.request(listener.url + "/console/api/tickets/agents/1/take", method: "POST", headers: Self.bearer(Self.nina)).status == 200)
        let taken = await offPool { Self.nextTicket(on: stream) { $0["status"] == "taken" } }
        #expect(taken?["agent"] == "nina")
        // What the customer writes next reaches the stream's copy of the conversation.
        try await HostMetricsTests.say("Are you there?", alice, running)
        let written = await offPool { Self.nextTicket(on: stream) { $0["messages"]?.arrayValue?.last?["text"] == "Are you there?" } }
        #expect(written?["messages"]?.arrayValue?.last?["from"] == "customer")
        await Listener.close(running, alice, listener)
    }

    /// The first ticket of the next `tickets` events that `matches`. Bounded: at most 20
    /// events, each read within the connection's 5 s receive timeout.
    static func nextTicket(on stream: EventStreamClient, _ matches: (JSONValue) -> Bool) -> JSONValue? {
        for _ in 0..<20 {
            guard let text = stream.nextEvent() else { return nil }
            if let (name, data) = event(text), name == "tickets", let first = data["tickets"]?.arrayValue?.first, matches(first) {
                return first
            }
        }
        return nil
    }

    @Test func signingOutEndsTheSessionsEventStream() async throws {
        let (running, alice, listener) = try await Self.listening()
        let port = try #require(URLComponents(string: listener.url)?.port)
        let (cookie, csrf) = try await Self.signIn(listener.url, token: Self.nina)
        let refused = try await Self.request(listener.url + "/console/api/events", headers: [(name: "Cookie", value: cookie)])
        #expect(refused.status == 403)
        let stream = try EventStreamClient(port: port)
        defer { stream.close() }
        let head = await offPool { stream.get("/console/api/events?csrf=\(csrf)", headers: "Cookie: \(cookie)\r\n") }
        #expect(head?.hasPrefix("http/1.1 200") == true)
        let opening = await offPool { [stream.nextEvent(), stream.nextEvent()] }.map(Self.event)
        #expect(opening.compactMap { $0?.name } == ["tickets", "broadcasts"])
        let out = try await Self.request(listener.url + "/console/api/session", method: "DELETE",
                                         headers: [(name: "Cookie", value: cookie), (name: "X-Parley-CSRF", value: csrf)])
        #expect(out.status == 204)
        await offPool { stream.readToEnd() }
        #expect(stream.finished)
        await Listener.close(running, alice, listener)
    }
}
