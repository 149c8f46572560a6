import Foundation
import ParleyBots
import ParleyCore
@testable import ParleyHosting
import ParleyHTTP
import ParleyTesting
import Testing

/// The visitors' chat API through real sockets on loopback against a real host on the
/// embedded hub: what a visitor sees, what is refused, and that a stream resumed after a drop
/// loses and repeats nothing.
@Suite struct WebChatTests {
    /// A host whose config has `http.web_chat` (`extra`: more keys under it), listening on a
    /// free port.
    static func listening(webChat extra: String = "", tune: (inout WebChatSettings) -> Void = { _ in }) async throws -> (RunningHost, OperationsListener, Int) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-web-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        try """
            storage: { path: state/parley.db }
            limits: { message_size: 1KB }
            http:
              listen: 127.0.0.1:0
              web_chat:
                bots: [desk]
            \(extra)
            """.write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        try """
            name: Desk
            greeting:
              - send: { card: greeting, text: "Hi {{user.name}}!" }
            commands:
              ping: { reply: pong }
              me: { send: { card: vcard, user: "{{user.id}}" } }
              docs: { send: { card: link, text: "Docs", url: "https://example.com/docs" } }
              quote: { reply: quoted, quote: true }
              like: { react: "👍" }
            """.write(toFile: folder + "/bots/desk.yaml", atomically: true, encoding: .utf8)
        try "name: Other\ncommands:\n  ping: { reply: pong }\n".write(toFile: folder + "/bots/other.yaml", atomically: true, encoding: .utf8)
        return try await start(folder, tune: tune)
    }

    /// A host and listener on the files of `folder` (again after a stop: a restart).
    static func start(_ folder: String, tune: (inout WebChatSettings) -> Void = { _ in }) async throws -> (RunningHost, OperationsListener, Int) {
        let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:])
        try #require(loaded.errors.isEmpty, "\(loaded.errors)")
        let running = try await RunningHost.make(loaded, options: RunningHost.Options(resolve: resolve, logger: .silent))
        await running.start()
        let listener = try #require(try OperationsListener.start(running, http: loaded.config?.http, tune: tune))
        let port = try #require(URLComponents(string: listener.url)?.port)
        return (running, listener, port)
    }

    /// Whether `texts` are `pings` times "/ping" and as many "pong", each "pong" after a
    /// "/ping" not yet answered. Pings sent while no stream is open are stored as they come,
    /// so a later "/ping" may come before the answer to an earlier one: the order of the
    /// conversation is fixed only that far.
    static func answersFollowPings(_ texts: [String?], pings: Int) -> Bool {
        var unanswered = 0
        for text in texts {
            switch text {
            case "/ping": unanswered += 1
            case "pong" where unanswered > 0: unanswered -= 1
            default: return false
            }
        }
        return unanswered == 0 && texts.count == 2 * pings
    }

    static func close(_ running: RunningHost, _ listener: OperationsListener) async {
        listener.stop()
        await running.shutdown()
    }

    @Test func aVisitorTalksToTheBotAndSeesEveryCardTheirOwnMessagesAndReactions() async throws {
        let (running, listener, port) = try await Self.listening()
        var visitor = WebVisitor(port: port, bot: "desk")
        let opened = try await visitor.open(name: "Alice")
        #expect(opened.status == 200)
        let cookie = try #require(opened.header("set-cookie"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/chat/desk"))
        let fields = try JSONValue.parse(opened.body).objectValue ?? [:]
        let user = try #require(fields["visitor"]?.stringValue)
        #expect(user.hasPrefix("web-") && user.count == 16)
        #expect(fields["name"] == "Alice")
        let (stream, head) = try await visitor.events()
        #expect(head?.hasPrefix("http/1.1 200") == true)
        for text in ["hello", "/me", "/docs", "/quote", "/like"] { #expect(try await visitor.say(text).status == 202) }
        // hello + greeting; /me + card; /docs + card; /quote + reply; /like + a reaction to it.
        let events = await stream.events(10)
        stream.close()
        try #require(events.count == 10, "\(events.map { "\($0.id ?? "-") \($0.event ?? "-") \($0.data)" }.joined(separator: "\n"))")
        // Ids are the hub's sequence numbers, a reaction numbered after the message before it.
        let messages = events.filter { $0.event == "message" }
        #expect(messages.map(\.id) == (1...9).map { String($0) })
        let reaction = try #require(events.last)
        #expect(reaction.event == "reaction" && reaction.id == "9.1")
        func first(_ type: String) throws -> ReceivedEvent { try #require(messages.first { $0.json["type"]?.stringValue == type }) }
        #expect(messages[0].json["from"] == "visitor" && messages[0].text == "hello")
        #expect(messages[0].json["sender"] == ["id": .string(user), "name": "Alice"])
        #expect(messages.filter { $0.json["from"] == "visitor" }.map(\.text) == ["hello", "/me", "/docs", "/quote", "/like"])
        #expect(try first("greeting").text == "Hi Alice!" && first("greeting").json["from"] == "bot")
        #expect(try first("vcard").json["fields"]?.objectValue?["name"] == "Alice")
        #expect(try first("link").json["fields"]?.objectValue?["url"] == "https://example.com/docs")
        let quoted = try #require(messages.first { $0.text == "quoted" })
        let quote = try #require(messages.first { $0.text == "/quote" })
        #expect(quoted.json["quote"] == ["id": quote.json["id"] ?? .null, "text": "/quote"])
        let like = try #require(messages.first { $0.text == "/like" })
        #expect(reaction.json["emoji"] == "👍" && reaction.json["user"] == "desk" && reaction.json["message"] == like.json["id"])
        await Self.close(running, listener)
    }

    @Test func aStreamDroppedByTheListenerResumesAfterItsLastEventWithNothingLostOrTwice() async throws {
        let (running, listener, port) = try await Self.listening()
        let door = try #require(listener.door)
        var visitor = WebVisitor(port: port, bot: "desk")
        _ = try await visitor.open()
        let (first, _) = try await visitor.events()
        #expect(try await visitor.say("/ping").status == 202)
        let before = await first.events(3)
        #expect(before.map(\.text) == ["/ping", "Hi Visitor!", "pong"])
        door.dropStreams()
        // The listener ended the stream: the client sees its end.
        await offPool { first.readToEnd() }
        #expect(first.finished)
        // While no stream is open the conversation goes on.
        for _ in 0..<3 { #expect(try await visitor.say("/ping").status == 202) }
        let (second, _) = try await visitor.events(after: before.last?.id)
        let after = await second.events(6)
        #expect(after.map(\.id) == ["4", "5", "6", "7", "8", "9"])
        #expect(Self.answersFollowPings(after.map(\.text), pings: 3))
        // Nothing more is waiting: the next event is the next message's.
        #expect(try await visitor.say("/ping").status == 202)
        #expect(await second.events(1).map(\.id) == ["10"])
        second.close()
        await Self.close(running, listener)
    }

    @Test func aStreamResumedFromBeyondTheLogIsAnsweredFromTheHubsHistory() async throws {
        let (running, listener, port) = try await Self.listening { $0.eventLogCapacity = 2 }
        var visitor = WebVisitor(port: port, bot: "desk")
        _ = try await visitor.open()
        let (first, _) = try await visitor.events()
        #expect(try await visitor.say("/ping").status == 202)
        let before = await first.events(3)
        #expect(before.map(\.text) == ["/ping", "Hi Visitor!", "pong"])
        first.close()
        for _ in 0..<3 { #expect(try await visitor.say("/ping").status == 202) }
        // The log keeps 2 events; 6 came since event 3: 4 from the history, then the log's.
        let (second, _) = try await visitor.events(after: "3")
        let after = await second.events(6)
        #expect(after.map(\.id) == ["4", "5", "6", "7", "8", "9"])
        #expect(Self.answersFollowPings(after.map(\.text), pings: 3))
        second.close()
        await Self.close(running, listener)
    }

    @Test func aRestartKeepsTheVisitorsSessionAndTheStreamResumesFromTheHubsHistory() async throws {
        var (running, listener, port) = try await Self.listening()
        let folder = try #require(running.storage.path.components(separatedBy: "/state/").first)
        var visitor = WebVisitor(port: port, bot: "desk")
        let opened = try JSONValue.parse(try await visitor.open(name: "Alice").body)
        let (first, _) = try await visitor.events()
        #expect(try await visitor.say("/ping").status == 202)
        let before = await first.events(3)
        #expect(before.map(\.text) == ["/ping", "Hi Alice!", "pong"])
        first.close()
        await Self.close(running, listener)
        (running, listener, port) = try await Self.start(folder)
        visitor = WebVisitor(port: port, bot: "desk", cookie: visitor.cookie)
        // The same cookie is the same visitor, by name too, and the bot knows them.
        let again = try await visitor.open()
        #expect(try JSONValue.parse(again.body).objectValue?["visitor"] == opened.objectValue?["visitor"])
        #expect(try JSONValue.parse(again.body).objectValue?["name"] == "Alice")
        #expect(try await visitor.say("/ping").status == 202)
        let (resumed, _) = try await visitor.events(after: before.last?.id)
        #expect(await resumed.events(2).map(\.text) == ["/ping", "pong"])
        resumed.close()
        // A page loaded afresh gets the whole conversation, once.
        let (whole, _) = try await visitor.events()
        #expect(await whole.events(5).map(\.id) == ["1", "2", "3", "4", "5"])
        whole.close()
        await Self.close(running, listener)
    }

    @Test func aSessionUnusedForItsExpiryBeforeARestartIsNotRestored() async throws {
        var (running, listener, port) = try await Self.listening(webChat: "    expire: 1h")
        let folder = try #require(running.storage.path.components(separatedBy: "/state/").first)
        var visitor = WebVisitor(port: port, bot: "desk")
        _ = try await visitor.open()
        await Self.close(running, listener)
        (running, listener, port) = try await Self.start(folder)
        let door = try #require(listener.door)
        let secret = try #require(visitor.cookie)
        try door.store.touch(secret: secret, at: Date().addingTimeInterval(-3_700))
        visitor = WebVisitor(port: port, bot: "desk", cookie: secret)
        #expect(try await visitor.say("hi").status == 401)
        try door.store.touch(secret: secret, at: Date().addingTimeInterval(-3_500))
        #expect(try await visitor.say("hi").status == 202)
        await Self.close(running, listener)
    }

    @Test func aStoredSessionUnusedForItsExpiryIsNotRestored() async throws {
        let store = try WebSessionStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("parley-web-\(UUID().uuidString).db").path)
        let now = Date()
        try store.save(secret: "old", .init(visitor: "web-1", bot: "desk", name: "A", lastUsed: now.addingTimeInterval(-7_200)))
        try store.save(secret: "new", .init(visitor: "web-2", bot: "desk", name: "B", lastUsed: now))
        #expect(try store.find(secret: "new")?.visitor == "web-2")
        #expect(try store.deleteUnused(before: now.addingTimeInterval(-3_600)) == 1)
        #expect(try store.find(secret: "old") == nil && store.find(secret: "new") != nil)
        #expect(try store.find(secret: "nothing") == nil)
    }

    @Test func eventPositionsReadBackAndTheLogKnowsHowFarItReaches() throws {
        var log = VisitorEventLog(capacity: 2)
        for seq: Int64 in 1...4 {
            let next = log.positionOfMessage(seq: seq)
            let position = try #require(next)
            log.append(.init(id: position.description, data: "m\(seq)"), at: position)
        }
        #expect(log.positionOfMessage(seq: 4) == nil)
        #expect(!log.covers(after: VisitorEventPosition("1")) && log.covers(after: VisitorEventPosition("2")))
        #expect(!log.covers(after: nil))
        #expect(log.events(after: VisitorEventPosition("3")).map(\.event.data) == ["m4"])
        #expect(VisitorEventPosition("7.2") == VisitorEventPosition(seq: 7, reaction: 2))
        #expect(VisitorEventPosition("x") == nil && VisitorEventPosition("1.0") == nil && VisitorEventPosition("-1") == nil)
    }

    @Test func oneVisitorsCookieNeverReadsAnothersEvents() async throws {
        let (running, listener, port) = try await Self.listening()
        var alice = WebVisitor(port: port, bot: "desk"), bob = WebVisitor(port: port, bot: "desk")
        _ = try await alice.open(name: "Alice")
        _ = try await bob.open(name: "Bob")
        #expect(alice.cookie != bob.cookie)
        let (aliceStream, _) = try await alice.events()
        let (bobStream, _) = try await bob.events()
        #expect(try await alice.say("secret of alice").status == 202)
        #expect(try await bob.say("/ping").status == 202)
        let seen = await bobStream.events(3)
        #expect(seen.map(\.text) == ["/ping", "Hi Bob!", "pong"])
        #expect(await aliceStream.events(1).map(\.text) == ["secret of alice"])
        aliceStream.close()
        bobStream.close()
        // Without a cookie, or with a made-up one, there is no stream at all.
        var stranger = WebVisitor(port: port, bot: "desk")
        stranger.cookie = "made-up"
        let (refused, head) = try await stranger.events()
        #expect(head?.hasPrefix("http/1.1 401") == true)
        refused.close()
        // A cookie of one bot's session is nothing to another bot's chat.
        await Self.close(running, listener)
    }

    @Test func writesFromAnOriginNotAllowedAreRefusedAndAnAllowedOneGetsCORS() async throws {
        let (running, listener, port) = try await Self.listening(webChat: "    origins: [\"https://shop.example\"]")
        var visitor = WebVisitor(port: port, bot: "desk")
        _ = try await visitor.open()
        var evil = visitor
        evil.origin = "https://evil.example"
        let refused = try await evil.say("hi")
        #expect(refused.status == 403)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("https://evil.example"))
        #expect(try await visitor.post("messages", #"text=hi"#, contentType: "application/x-www-form-urlencoded").status == 415)
        var shop = WebVisitor(port: port, bot: "desk", origin: "https://shop.example")
        let opened = try await shop.open()
        #expect(opened.status == 200)
        #expect(opened.header("access-control-allow-origin") == "https://shop.example")
        #expect(opened.header("access-control-allow-credentials") == "true")
        #expect(opened.header("set-cookie")?.contains("SameSite=None; Secure") == true)
        #expect(try await shop.say("hi").status == 202)
        await Self.close(running, listener)
    }

    @Test func badRequestsNameWhatIsWrong() async throws {
        let (running, listener, port) = try await Self.listening()
        var visitor = WebVisitor(port: port, bot: "desk")
        #expect(try await visitor.say("hi").status == 401)
        _ = try await visitor.open()
        func problem(_ answer: HTTPResponse) -> String { (try? JSONValue.parse(answer.body))?.objectValue?["error"]?.stringValue ?? "" }
        let unknown = try await visitor.post("messages", #"{"txt": "hi"}"#)
        #expect(unknown.status == 400 && problem(unknown).contains("unknown field 'txt'"))
        let large = try await visitor.say(String(repeating: "x", count: 1_025))
        #expect(large.status == 413 && problem(large).contains("1025 bytes"))
        let reply = try await visitor.post("messages", #"{"text": "hi", "reply_to": "nope"}"#)
        #expect(reply.status == 400 && problem(reply).contains("reply_to"))
        let emoji = try await visitor.post("reactions", #"{"message": "m1", "emoji": "yes"}"#)
        #expect(emoji.status == 400 && problem(emoji).contains("emoji"))
        var other = WebVisitor(port: port, bot: "other")
        #expect(try await other.open().status == 404)
        await Self.close(running, listener)
    }

    @Test func aFloodingVisitorGets429WithRetryAfterWhileAnotherIsAnswered() async throws {
        let (running, listener, port) = try await Self.listening()
        var flooder = WebVisitor(port: port, bot: "desk"), calm = WebVisitor(port: port, bot: "desk")
        _ = try await flooder.open()
        _ = try await calm.open()
        var statuses: [Int] = []
        var retryAfter: String?
        for _ in 0..<50 {
            let answer = try await flooder.say("spam")
            statuses.append(answer.status)
            if answer.status == 429 { retryAfter = answer.header("retry-after") }
        }
        // The default: 5 a second, a burst of 5 (50 taken at once would need 9 s).
        #expect(statuses.prefix(5) == [202, 202, 202, 202, 202])
        #expect(statuses.contains(429) && Int(retryAfter ?? "") ?? 0 >= 1)
        let (stream, _) = try await calm.events()
        #expect(try await calm.say("/ping").status == 202)
        #expect(await stream.events(3).map(\.text) == ["/ping", "Hi Visitor!", "pong"])
        stream.close()
        await Self.close(running, listener)
    }

    @Test func fiveHundredVisitorsAtOnceEachGetTheirAnswer() async throws {
        let (running, listener, port) = try await Self.listening(webChat: "    rate: { address: 10000/s }")
        // 500 sessions open at once, driven by 50 clients at a time (each a thread while it
        // reads its stream): every session stays open until the end.
        var visitors: [WebVisitor] = []
        let failures = try await withThrowingTaskGroup(of: (WebVisitor, String?).self) { group in
            var failures: [String] = []
            for index in 0..<500 {
                if index >= 50, let (visitor, failure) = try await group.next() {
                    visitors.append(visitor)
                    if let failure { failures.append(failure) }
                }
                group.addTask {
                    var visitor = WebVisitor(port: port, bot: "desk")
                    let opened = try await visitor.open(name: "V\(index)").status
                    guard opened == 200 else { return (visitor, "V\(index): open \(opened)") }
                    let said = try await visitor.say("/ping").status
                    guard said == 202 else { return (visitor, "V\(index): say \(said)") }
                    // The stream replays from the log: the answer is there whenever it came. In
                    // the whole suite on 2 cores an answer can take over 5 s (one of 500 did in
                    // a fresh-clone run), so a read here waits up to 30.
                    let (stream, _) = try await visitor.events(readTimeout: 30)
                    defer { stream.close() }
                    let texts = await stream.events(3).map(\.text)
                    let expected = ["/ping", "Hi V\(index)!", "pong"]
                    return (visitor, texts == expected ? nil : "V\(index): \(texts)")
                }
            }
            for try await (visitor, failure) in group {
                visitors.append(visitor)
                if let failure { failures.append(failure) }
            }
            return failures
        }
        #expect(Set(visitors.compactMap(\.cookie)).count == 500)
        #expect(failures.isEmpty, "\(failures)")
        #expect(listener.door?.sessionCount == 500)
        await Self.close(running, listener)
    }

    @Test func aSessionUnusedForItsExpiryEnds() async throws {
        let (running, listener, port) = try await Self.listening(webChat: "    expire: 1h")
        let door = try #require(listener.door)
        var visitor = WebVisitor(port: port, bot: "desk")
        _ = try await visitor.open()
        #expect(door.sessionCount == 1)
        door.sweep(at: Date().addingTimeInterval(59 * 60))
        #expect(door.sessionCount == 1)
        door.sweep(at: Date().addingTimeInterval(61 * 60))
        #expect(door.sessionCount == 0)
        #expect(try await visitor.say("hi").status == 401)
        await Self.close(running, listener)
    }
}

@Suite struct ISOTimestampTests {
    @Test func itMatchesFoundationsFormatToTheSecond() {
        for seconds in [0.0, 951_782_400.5, 1_764_670_000.999, 4_102_444_799] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ISOTimestamp.string(date) == Date(timeIntervalSince1970: seconds.rounded(.down)).formatted(.iso8601))
        }
    }
}
