import Foundation
import ParleyCore
import ParleyHosting
import ParleyHTTP
import ParleyTesting
import Testing

/// The admin API's actions through the listener on loopback, on the embedded hub: broadcast
/// jobs started, paused, resumed and cancelled, tickets taken, answered and resolved — and
/// what the users received, read on the hub.
@Suite struct AdminAPIActionsTests {
    typealias Listener = OperationsListenerTests

    static let users = ["alice", "bob", "carol", "dave"]
    static let audience = ["bob", "carol", "dave"]

    static func post(_ url: String, _ body: String, token: String? = Listener.token) async throws -> HTTPResponse {
        try await Listener.get(url, token: token, method: "POST", body: body)
    }

    /// The bot's messages in its direct channel with `user`, as their texts.
    static func received(_ user: String, _ running: RunningHost) throws -> [String] {
        try #require(running.hub).messages(in: .person("desk"), seenBy: user)
            .filter { $0.sender == "desk" }.compactMap { $0.payload["text"]?.stringValue }
    }

    /// Messages of the bot to the audience, in all.
    static func receivedByAudience(_ running: RunningHost) throws -> Int {
        try audience.map { try received($0, running).count }.reduce(0, +)
    }

    /// At 1/s the job sends its first message at once and the next a second later: the pause,
    /// asked for right after the start, lands while it waits (the wait ends at the pause).
    @Test func aBroadcastStartedPausedResumedAndFinishedReachesEachRecipientOnce() async throws {
        let (running, alice, listener) = try await Listener.listening(users: Self.users)
        let api = listener.url + "/api/v1/broadcasts"
        let started = try await Self.post(api, #"{"bot": "desk", "to": ["user:bob", "user:carol", "user:dave", "user:bob"], "text": "Sale for {{recipient.id}}", "rate": "1/s", "id": "sale"}"#)
        #expect(started.status == 201)
        #expect(started.header("location") == "/api/v1/broadcasts/sale")
        let job = try Listener.json(started)
        #expect(job["id"] == "sale" && job["bot"] == "desk" && job["state"] == "running" && job["origin"] == "api" && job["total"] == 3)

        let paused = try await Self.post(api + "/sale/pause", "")
        #expect(paused.status == 200)
        let atPause = try Listener.json(paused)
        let sent = try #require(atPause["sent"]?.intValue)
        #expect(atPause["state"] == "paused" && sent <= 1 && atPause["pending"]?.intValue == 3 - sent)
        // Nothing more goes out while paused: the host has nothing left to do.
        try await withTimeout { await running.host.waitUntilIdle() }
        #expect(try Self.receivedByAudience(running) == Int(sent))
        #expect(try Listener.json(try await Listener.get(api + "/sale", token: Listener.token)) == atPause)
        let again = try await Self.post(api + "/sale/pause", "")
        #expect(again.status == 409)
        #expect(try Listener.json(again) == ["error": "broadcast 'sale' is paused: only a job that is running can be paused"])

        let resumed = try await Self.post(api + "/sale/resume", "")
        #expect(resumed.status == 200)
        #expect(try Listener.json(resumed)["state"] == "running")
        try await withTimeout { await running.host.waitUntilIdle() }
        let finished = try Listener.json(try await Listener.get(api + "/sale", token: Listener.token))
        #expect(finished["state"] == "finished" && finished["sent"] == 3 && finished["pending"] == 0 && finished["failed"] == 0)
        #expect(finished["finished"]?.stringValue?.hasPrefix("20") == true)
        for user in Self.audience { #expect(try Self.received(user, running) == ["Sale for \(user)"], "\(user)") }
        #expect(try Self.received("alice", running).isEmpty)

        // The same id again is the same job, not a second one.
        let repeated = try await Self.post(api, #"{"bot": "desk", "to": ["user:bob"], "text": "Again", "id": "sale"}"#)
        #expect(repeated.status == 200)
        #expect(try Listener.json(repeated)["state"] == "finished")
        for action in ["resume", "pause", "cancel"] {
            let refused = try await Self.post(api + "/sale/" + action, "")
            #expect(refused.status == 409, "\(action)")
        }
        try await withTimeout { await running.host.waitUntilIdle() }
        #expect(try Self.receivedByAudience(running) == 3)
        await Listener.close(running, alice, listener)
    }

    @Test func aCancelledBroadcastNeverSendsAgainAndReportsItsRecipientsCancelled() async throws {
        let (running, alice, listener) = try await Listener.listening(users: Self.users)
        let api = listener.url + "/api/v1/broadcasts"
        let started = try await Self.post(api, #"{"bot": "desk", "to": ["user:bob", "user:carol", "user:dave"], "send": {"text": "Flash {{bot.name}}"}, "rate": "1/s", "id": "flash"}"#)
        #expect(started.status == 201)
        let cancelled = try Listener.json(try await Self.post(api + "/flash/cancel", ""))
        let sent = try #require(cancelled["sent"]?.intValue)
        #expect(cancelled["state"] == "cancelled" && cancelled["pending"] == 0 && cancelled["cancelled"]?.intValue == 3 - sent)
        #expect(cancelled["finished"] != nil)
        let resume = try await Self.post(api + "/flash/resume", "")
        #expect(resume.status == 409)
        #expect(try Listener.json(resume) == ["error": "broadcast 'flash' is cancelled: only a job that is paused can be resumed"])
        #expect(try await Self.post(api + "/flash/pause", "").status == 409)
        #expect(try await Self.post(api + "/flash/cancel", "").status == 409)
        try await withTimeout { await running.host.waitUntilIdle() }
        #expect(try Self.receivedByAudience(running) == Int(sent))
        if sent == 1 { #expect(try Self.received("bob", running) == ["Flash Desk"]) }
        let listed = try Listener.json(try await Listener.get(api, token: Listener.token))["broadcasts"]?.arrayValue
        #expect(listed?.first?["state"] == "cancelled")
        await Listener.close(running, alice, listener)
    }

    @Test(arguments: [
        ("nope", "the body is not JSON"),
        ("[1]", "the body must be a JSON object"),
        (#"{"to": ["user:bob"], "text": "x"}"#, "bot: required"),
        (#"{"bot": "ghost", "to": ["user:bob"], "text": "x"}"#, "bot: no bot 'ghost' in this host"),
        (#"{"bot": "desk", "text": "x"}"#, "to: give at least one target (user:ID or group:ID)"),
        (#"{"bot": "desk", "to": ["bob"], "text": "x"}"#, "to: invalid target 'bob': expected user:ID or group:ID"),
        (#"{"bot": "desk", "to": "user:bob", "text": "x"}"#, "to: expected a list of strings"),
        (#"{"bot": "desk", "to": ["user:bob"]}"#, "text: required (or a 'send' object)"),
        (#"{"bot": "desk", "to": ["user:bob"], "text": "Hi {{user.name}}"}"#,
         "send.text: unknown placeholder '{{user.name}}'; use bot.id, bot.name, recipient.id, recipient.name, recipient.target"),
        (#"{"bot": "desk", "to": ["user:bob"], "send": {"card": "poster"}}"#, "send.card: bot 'desk' has no card 'poster'"),
        (#"{"bot": "desk", "to": ["user:bob"], "text": "x", "rate": "fast"}"#,
         "rate: invalid rate 'fast': expected COUNT/UNIT with a unit of s, m or h, like 20/s or 600/m"),
        (#"{"bot": "desk", "recipients": ["user:bob"], "text": "x"}"#, "unknown field 'recipients': expected bot, id, rate, send, text, to"),
    ])
    func aBadBroadcastIs400NamingTheField(body: String, error: String) async throws {
        let (running, alice, listener) = try await Listener.listening()
        let answer = try await Self.post(listener.url + "/api/v1/broadcasts", body)
        #expect(answer.status == 400)
        #expect(try Listener.json(answer) == ["error": .string(error)])
        #expect(try Listener.json(try await Listener.get(listener.url + "/api/v1/broadcasts", token: Listener.token)) == ["broadcasts": []])
        await Listener.close(running, alice, listener)
    }

    @Test func unknownJobsWrongMethodsAndNoTokenAreRefused() async throws {
        let (running, alice, listener) = try await Listener.listening()
        let api = listener.url + "/api/v1/"
        let unknown = try await Listener.get(api + "broadcasts/nope", token: Listener.token)
        #expect(unknown.status == 404)
        #expect(try Listener.json(unknown) == ["error": "no broadcast with id 'nope'"])
        for action in ["pause", "resume", "cancel"] {
            #expect(try await Self.post(api + "broadcasts/nope/" + action, "").status == 404, "\(action)")
        }
        #expect(try await Self.post(api + "broadcasts/nope/restart", "").status == 404)
        let wrong = try await Listener.get(api + "broadcasts/nope/pause", token: Listener.token)
        #expect(wrong.status == 405)
        #expect(wrong.header("allow") == "POST")
        #expect(try await Listener.get(api + "broadcasts", token: Listener.token, method: "DELETE").status == 405)
        #expect(try await Listener.get(api + "broadcasts/nope", token: Listener.token, method: "POST").status == 405)
        #expect(try await Listener.get(api + "tickets/agents/1/take", token: Listener.token).status == 405)
        let body = #"{"bot": "desk", "to": ["user:bob"], "text": "x"}"#
        #expect(try await Self.post(api + "broadcasts", body, token: nil).status == 401)
        #expect(try await Self.post(api + "broadcasts/nope/pause", "", token: nil).status == 401)
        #expect(try await Self.post(api + "tickets/agents/1/take", #"{"agent": "nina"}"#, token: "wrong").status == 401)
        try await withTimeout { await running.host.waitUntilIdle() }
        #expect(try Self.received("bob", running).isEmpty)
        await Listener.close(running, alice, listener)
    }

    /// A customer handed off to the agents: an agent takes, answers and resolves the ticket
    /// through the API; the customer gets the answer from the bot and then the bot again.
    @Test func aTicketTakenAnsweredAndResolvedThroughTheAPI() async throws {
        let (running, alice, listener) = try await Listener.listening()
        let api = listener.url + "/api/v1/tickets/"
        try await HostMetricsTests.say("/human", alice, running)

        let taken = try await Self.post(api + "agents/1/take", #"{"agent": "nina"}"#)
        #expect(taken.status == 200)
        let ticket = try Listener.json(taken)
        #expect(ticket["number"] == 1 && ticket["queue"] == "agents" && ticket["user"] == "alice" && ticket["status"] == "taken"
            && ticket["agent"] == "nina")
        let stolen = try await Self.post(api + "agents/1/take", #"{"agent": "omar"}"#)
        #expect(stolen.status == 409)
        #expect(try Listener.json(stolen) == ["error": "Ticket #1 is taken by nina already."])

        let replied = try await Self.post(api + "agents/1/reply", #"{"agent": "nina", "text": "Your refund is on its way."}"#)
        #expect(replied.status == 200)
        try await withTimeout { await running.host.waitUntilIdle() }
        #expect(try Self.received("alice", running).last == "Your refund is on its way.")
        // While the agents have her, alice's messages go to them, not to the bot's commands.
        try await HostMetricsTests.say("/ping", alice, running)
        #expect(try Self.received("alice", running).last == "Your refund is on its way.")

        let resolved = try await Self.post(api + "agents/1/resolve", #"{"agent": "nina"}"#)
        #expect(resolved.status == 200)
        #expect(try Listener.json(resolved)["status"] == "resolved")
        try await withTimeout { await running.host.waitUntilIdle() }
        try await HostMetricsTests.say("/ping", alice, running)
        #expect(try Self.received("alice", running).last == "pong")
        let listed = try Listener.json(try await Listener.get(String(api.dropLast()) + "?status=resolved", token: Listener.token))
        #expect(listed["tickets"]?.arrayValue?.first?["agent"] == "nina")

        let late = try await Self.post(api + "agents/1/reply", #"{"agent": "nina", "text": "One more thing"}"#)
        #expect(late.status == 409)
        #expect(try Listener.json(late) == ["error": "ticket #1 of 'agents' is resolved"])
        for (path, body, status) in [
            ("agents/9/take", #"{"agent": "nina"}"#, 404), ("nowhere/1/take", #"{"agent": "nina"}"#, 404),
            ("agents/x/take", #"{"agent": "nina"}"#, 404), ("agents/1/take", "{}", 400),
            ("agents/1/reply", #"{"agent": "nina"}"#, 400), ("agents/1/take", #"{"agent": "nina", "text": "x"}"#, 400),
        ] {
            #expect(try await Self.post(api + path, body).status == status, "\(path) \(body)")
        }
        #expect(try Listener.json(try await Self.post(api + "nowhere/1/take", #"{"agent": "nina"}"#))
            == ["error": "no running bot hands off to queue 'nowhere'"])
        #expect(try Listener.json(try await Self.post(api + "agents/1/reply", #"{"agent": "nina"}"#)) == ["error": "text: required"])
        await Listener.close(running, alice, listener)
    }
}
