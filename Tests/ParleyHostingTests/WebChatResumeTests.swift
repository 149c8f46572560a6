import Foundation
import ParleyCore
@testable import ParleyHosting
import ParleyHTTP
import ParleyTesting
import ParleyStore
import Testing

/// What a crash leaves behind for the web chat: the hub's delivery cursors as last saved (a
/// SIGKILL saves none), and sends whose answer never came. A resumed stream still gets exactly
/// what came after its position, and a send repeated with its `client_id` is stored once.
@Suite struct WebChatResumeTests {
    /// A host on the files of `folder`, and a visitor with their session's cookie.
    struct Chat {
        var running: RunningHost
        var listener: OperationsListener
        var visitor: WebVisitor
        let folder: String

        /// Stops the host, runs `whileStopped` (a crash's leftovers), starts it again on the
        /// same files, and keeps the visitor's cookie.
        mutating func restart(whileStopped: () throws -> Void = {}) async throws {
            await WebChatTests.close(running, listener)
            try whileStopped()
            let port: Int
            (running, listener, port) = try await WebChatTests.start(folder)
            visitor = WebVisitor(port: port, bot: "desk", cookie: visitor.cookie)
        }

        func close() async { await WebChatTests.close(running, listener) }
    }

    /// A visitor who says `/ping` `pings` times, and the events they saw: their messages, the
    /// greeting and the answers (a stream opened before and closed after).
    static func chatting(pings: Int) async throws -> (Chat, [ReceivedEvent]) {
        let chat = try await opened()
        let (stream, _) = try await chat.visitor.events()
        // Each `/ping` after the answers to the one before, so the conversation's order is
        // fixed: `/ping`, the greeting and `pong`, then `/ping`, `pong` each.
        var seen: [ReceivedEvent] = []
        for index in 0..<pings {
            #expect(try await chat.visitor.say("/ping").status == 202)
            seen += await stream.events(index == 0 ? 3 : 2)
        }
        stream.close()
        #expect(seen.map(\.id) == (1...(1 + 2 * pings)).map { String($0) })
        return (chat, seen)
    }

    /// A host and a visitor with a session, who has said nothing yet.
    static func opened() async throws -> Chat {
        let (running, listener, port) = try await WebChatTests.listening()
        let folder = try #require(running.storage.path.components(separatedBy: "/state/").first)
        var visitor = WebVisitor(port: port, bot: "desk")
        _ = try await visitor.open()
        return Chat(running: running, listener: listener, visitor: visitor, folder: folder)
    }

    @Test func aStreamResumedAfterACrashGetsExactlyWhatCameAfterItsPosition() async throws {
        var (chat, seen) = try await Self.chatting(pings: 2)
        let user = try #require(seen.first?.json["sender"]?.objectValue?["id"]?.stringValue)
        let hubFile = chat.folder + "/state/parley.db"
        try await chat.restart {
            // What a SIGKILL leaves: the cursors as saved long before (here: none given yet).
            let hub = try Connection(path: hubFile)
            try hub.run("UPDATE hub_members SET cursor = 0 WHERE user = ?", [.text(user)])
        }
        // The stream comes back first (as a browser's does), restoring the session: its pump
        // catches up from the stale cursor while the stream is answered from the history.
        let (resumed, _) = try await chat.visitor.events(after: "3")
        #expect(try await chat.visitor.say("/ping").status == 202)
        // Exactly what came after 3, then the next message: nothing of 1…3 again.
        let after = await resumed.events(4)
        #expect(after.map(\.id) == ["4", "5", "6", "7"])
        #expect(after.map(\.text) == ["/ping", "pong", "/ping", "pong"])
        #expect(try await chat.visitor.say("/ping").status == 202)
        #expect(await resumed.events(2).map(\.id) == ["8", "9"])
        resumed.close()
        await chat.close()
    }

    @Test func aReactionAfterARestartIsNumberedAfterTheConversationsLastMessage() async throws {
        var (chat, seen) = try await Self.chatting(pings: 1)
        // A clean restart: the cursors are saved, nothing is caught up again.
        try await chat.restart()
        let (resumed, _) = try await chat.visitor.events(after: "3")
        let pong = try #require(seen.last?.json["id"]?.stringValue)
        let reacted = try await chat.visitor.post("reactions", #"{"message": "\#(pong)", "emoji": "👍"}"#)
        #expect(reacted.status == 204)
        // After message 3, not "0.1": a browser resuming from that would get the whole
        // conversation again.
        #expect(await resumed.events(1).map(\.id) == ["3.1"])
        resumed.close()
        await chat.close()
    }

    @Test func aSendRepeatedWithItsClientIDIsAnsweredWithTheFirstResultAndStoredOnce() async throws {
        var chat = try await Self.opened()
        let body = #"{"text": "/ping", "client_id": "tab-1:0001"}"#
        let first = try await chat.visitor.post("messages", body)
        #expect(first.status == 202)
        let again = try await chat.visitor.post("messages", body)
        #expect(again.status == 202 && again.body == first.body)
        // Another id is another message.
        let other = try await chat.visitor.post("messages", #"{"text": "/ping", "client_id": "tab-1:0002"}"#)
        #expect(other.status == 202 && other.body != first.body)
        // After a restart the same visitor's repeat is still known.
        try await chat.restart()
        let afterRestart = try await chat.visitor.post("messages", body)
        #expect(afterRestart.status == 202 && afterRestart.body == first.body)
        let (stream, _) = try await chat.visitor.events()
        // The visitor's two messages, the greeting and two answers: once each. The second
        // `/ping` was sent before the first was answered, so it may come before that answer.
        let events = await stream.events(5)
        let texts = events.map(\.text)
        #expect(texts.first == "/ping" && texts.filter { $0 == "Hi Visitor!" }.count == 1)
        #expect(WebChatTests.answersFollowPings(texts.filter { $0 != "Hi Visitor!" }, pings: 2))
        stream.close()
        let door = try #require(chat.listener.door)
        let user = try #require(events.first?.json["sender"]?.objectValue?["id"]?.stringValue)
        #expect(door.hub.lastSeq(in: .person("desk"), seenBy: user) == 5)
        await chat.close()
    }

    @Test func aClientIDThatIsNotOneIsRefusedNamingTheField() async throws {
        let (running, listener, port) = try await WebChatTests.listening()
        var visitor = WebVisitor(port: port, bot: "desk")
        _ = try await visitor.open()
        for bad in [#""""#, #""has space""#, "\"\(String(repeating: "x", count: 129))\"", "7"] {
            let answer = try await visitor.post("messages", #"{"text": "hi", "client_id": \#(bad)}"#)
            let problem = (try? JSONValue.parse(answer.body))?.objectValue?["error"]?.stringValue ?? ""
            #expect(answer.status == 400 && problem.contains("client_id"), "\(bad): \(answer.status) \(problem)")
        }
        #expect(VisitorSession.isClientID("3f0c6e2a-1b4d-4c8e-9a7f-2d5b8e1c0f3a") && VisitorSession.isClientID(String(repeating: "a", count: 128)))
        await WebChatTests.close(running, listener)
    }
}
