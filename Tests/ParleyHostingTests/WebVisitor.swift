import Foundation
import ParleyCore
import ParleyHTTP
import ParleyTesting

/// A visitor of the web chat, as a browser would be: a cookie jar of one cookie, JSON POSTs
/// with an `Origin`, and the event stream read over a raw socket.
struct WebVisitor: Sendable {
    let port: Int
    let bot: String
    var cookie: String?
    var origin: String?

    init(port: Int, bot: String, origin: String? = nil, cookie: String? = nil) {
        self.port = port
        self.bot = bot
        self.cookie = cookie
        self.origin = origin ?? "http://127.0.0.1:\(port)"
    }

    var base: String { "http://127.0.0.1:\(port)/chat/\(bot)" }

    /// POSTs `body` to `/chat/<bot>/<action>` with the cookie and origin.
    func post(_ action: String, _ body: String, contentType: String = "application/json") async throws -> HTTPResponse {
        var headers = [(name: "Content-Type", value: contentType)]
        if let origin { headers.append((name: "Origin", value: origin)) }
        if let cookie { headers.append((name: "Cookie", value: "parley_chat=\(cookie)")) }
        let request = HTTPRequest(method: "POST", url: "\(base)/\(action)", headers: headers, body: Data(body.utf8),
                                  timeout: .seconds(10), responseLimit: 1 << 20)
        return try await withTimeout { try await HTTPClient().send(request) }
    }

    /// Opens a session and keeps its cookie.
    mutating func open(name: String? = nil) async throws -> HTTPResponse {
        let answer = try await post("session", name.map { #"{"name": \#(JSONValue.string($0).jsonString())}"# } ?? "{}")
        if let header = answer.header("set-cookie"), let value = header.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last {
            cookie = String(value)
        }
        return answer
    }

    /// Sends a text; the answer's status.
    func say(_ text: String) async throws -> HTTPResponse {
        try await post("messages", #"{"text": \#(JSONValue.string(text).jsonString())}"#)
    }

    /// Opens the event stream after `lastEventID`; the client and the answer's head. A read
    /// waits at most `readTimeout` seconds.
    func events(after lastEventID: String? = nil, readTimeout: Int = 5) async throws -> (EventStreamClient, String?) {
        let client = try EventStreamClient(port: port, timeoutSeconds: readTimeout)
        var headers = cookie.map { "Cookie: parley_chat=\($0)\r\n" } ?? ""
        if let lastEventID { headers += "Last-Event-ID: \(lastEventID)\r\n" }
        let path = "/chat/\(bot)/events", request = headers
        let head = await offPool { client.get(path, headers: request) }
        return (client, head)
    }
}

/// One event of the stream, its fields read.
struct ReceivedEvent: Sendable, Equatable {
    var id: String?
    var event: String?
    var data: String

    init(_ block: String) {
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
            if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
        }
        self.data = data.joined(separator: "\n")
    }

    init(id: String?, event: String?, data: String) {
        self.id = id
        self.event = event
        self.data = data
    }

    var json: [String: JSONValue] { (try? JSONValue.parse(data))?.objectValue ?? [:] }
    var text: String? { json["text"]?.stringValue }
}

extension EventStreamClient {
    /// The next `count` events with an id (the `retry` preamble and keep-alives skipped), or
    /// fewer if the stream ends or a read times out.
    func events(_ count: Int) async -> [ReceivedEvent] {
        await offPool {
            var found: [ReceivedEvent] = []
            // Bounded: each read waits at most the socket's timeout.
            for _ in 0..<(count * 4 + 8) where found.count < count {
                guard let block = self.nextEvent() else { break }
                let event = ReceivedEvent(block)
                if event.id != nil { found.append(event) }
            }
            return found
        }
    }
}
