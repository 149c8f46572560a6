import Foundation
import ParleyBots
import ParleyCore
import ParleyHTTPServer

/// What the listener answers under `/chat/`: the widget's page and assets, and the visitor API
/// (docs/WEB.md): `session`, `messages`, `reactions` and the `events` stream of one bot.
struct WebChatRoutes: Sendable {
    let door: WebChatDoor
    static let cookieName = "parley_chat"

    /// What needs no waiting, answered on the listener's thread as the console's page is: the
    /// widget's page and assets, and paths that name nothing. Nil for the API.
    func answerAtOnce(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        let parts = Self.parts(request)
        guard let bot = parts.first, !bot.isEmpty, parts.count <= 2 else { return OperationsRoutes.error(404, "no such page: \(request.path)") }
        if parts.count == 1 || bot == "assets" || bot == "embed.js" { return WebChatPages.answer(request, parts: parts, door: door) }
        return nil
    }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        if let answer = answerAtOnce(request) { return answer }
        let parts = Self.parts(request)
        let bot = parts[0]
        guard door.settings.bots.contains(bot) else { return OperationsRoutes.error(404, "no web chat with '\(bot)'") }
        let origin = WebChatOrigin(request, allowed: door.settings.origins)
        if case .refused(let other) = origin {
            return OperationsRoutes.error(403, "origin \(other) may not use this chat: add it to http.web_chat.origins")
        }
        var answer = await route(request, bot: bot, action: parts[1], origin: origin)
        answer.headers += origin.corsHeaders
        return answer
    }

    /// The path's parts after `/chat/`: the bot (or `assets`, `embed.js`) and the action.
    private static func parts(_ request: HTTPServerRequest) -> [String] {
        request.path.dropFirst("/chat/".count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }

    private func route(_ request: HTTPServerRequest, bot: String, action: String, origin: WebChatOrigin) async -> HTTPServerResponse {
        if request.method == "OPTIONS" { return Self.preflight(origin) }
        switch (action, request.method) {
        case ("events", "GET"):
            return await events(request, bot: bot)
        case ("session", "POST"), ("messages", "POST"), ("reactions", "POST"):
            guard request.header("content-type")?.lowercased().hasPrefix("application/json") == true else {
                return OperationsRoutes.error(415, "send the body as Content-Type: application/json")
            }
            if let wait = door.limit("address " + request.remoteAddress, rate: door.settings.addressRate) { return Self.tooMany(wait) }
            if action == "session" { return openSession(request, bot: bot, origin: origin) }
            guard let session = door.session(secret: request.cookie(Self.cookieName), bot: bot) else { return Self.noSession }
            if let wait = door.limit("session " + session.secret, rate: door.settings.sessionRate) { return Self.tooMany(wait) }
            return action == "messages" ? await send(request, in: session) : await react(request, in: session)
        case ("events", _):
            return OperationsRoutes.methodNotAllowed("GET")
        case ("session", _), ("messages", _), ("reactions", _):
            return OperationsRoutes.methodNotAllowed("POST")
        default:
            return OperationsRoutes.error(404, "no such page: \(request.path)")
        }
    }

    /// `POST session`: the cookie's session (renamed if a name is given), or a new one.
    private func openSession(_ request: HTTPServerRequest, bot: String, origin: WebChatOrigin) -> HTTPServerResponse {
        let name: String?
        do throws(JSONBody.Problem) {
            name = try JSONBody(request.body, known: ["name"]).string("name").map(VisitorName.clean)
        } catch {
            return error.response
        }
        let session: VisitorSession
        if let existing = door.session(secret: request.cookie(Self.cookieName), bot: bot) {
            if let name, !name.isEmpty { door.rename(existing, to: name) }
            session = existing
        } else {
            do {
                session = try door.open(bot: bot, name: name.flatMap { $0.isEmpty ? nil : $0 } ?? VisitorName.default)
            } catch {
                switch error {
                case .full: return OperationsRoutes.error(503, "too many visitors right now: try again in a minute")
                case .hub(let problem): return OperationsRoutes.error(500, "cannot open a session: \(problem.message)")
                }
            }
        }
        let body = JSONValue.object(["visitor": .string(session.visitor), "name": .string(session.name),
                                     "bot": .object(["id": .string(bot), "name": .string(door.hub.user(bot)?.displayName ?? bot)])])
        var answer = HTTPServerResponse.json(200, body.jsonData())
        answer.headers.append((name: "Set-Cookie", value: "\(Self.cookieName)=\(session.secret); " + origin.cookieAttributes(path: "/chat/\(bot)")))
        answer.headers.append((name: "Cache-Control", value: "no-store"))
        return answer
    }

    /// `POST messages`: the text goes to the bot; 202 once the hub has stored it. With a
    /// `client_id`, a repeat (a send cut by a crash or a network drop, tried again) is answered
    /// with the first send's id and stored once.
    private func send(_ request: HTTPServerRequest, in session: VisitorSession) async -> HTTPServerResponse {
        let text: String
        var reply: ReplyReference?
        var clientID: String?
        do throws(JSONBody.Problem) {
            let fields = try JSONBody(request.body, known: ["text", "reply_to", "client_id"])
            guard let value = try fields.string("text", required: true) else { throw JSONBody.Problem(message: "text: required") }
            text = value
            clientID = try fields.string("client_id")
            if let clientID, !VisitorSession.isClientID(clientID) {
                throw JSONBody.Problem(message: "client_id: '\(clientID.prefix(40))' is not 1 to 128 letters, digits and . _ : -")
            }
            if let id = try fields.string("reply_to") {
                guard let found = session.replyReference(to: id) else { throw JSONBody.Problem(message: "reply_to: no recent message '\(id)' in this conversation") }
                reply = found
            }
        } catch {
            return error.response
        }
        guard text.utf8.count <= door.settings.maxMessageBytes else {
            return OperationsRoutes.error(413, "text: \(text.utf8.count) bytes, more than the \(door.settings.maxMessageBytes) this chat takes")
        }
        let envelope = OutgoingEnvelope(channel: session.channel, clientMessageID: session.messageID(clientID: clientID),
                                        payload: TextContent(text).encoded(), replyTo: reply)
        do {
            let receipt = try await session.transport.send(envelope)
            return .json(202, JSONValue.object(["id": .string(receipt.messageID), "seq": .int(receipt.seq)]).jsonData())
        } catch {
            return Self.failure(error, doing: "send")
        }
    }

    /// `POST reactions`.
    private func react(_ request: HTTPServerRequest, in session: VisitorSession) async -> HTTPServerResponse {
        let message: String, emoji: String
        var added = true
        do throws(JSONBody.Problem) {
            let fields = try JSONBody(request.body, known: ["message", "emoji", "added"])
            guard let id = try fields.string("message", required: true), let symbol = try fields.string("emoji", required: true) else {
                throw JSONBody.Problem(message: "message and emoji: required")
            }
            guard ValueCheck.isEmoji(symbol) else { throw JSONBody.Problem(message: "emoji: '\(symbol)' is not one emoji") }
            if let value = fields.fields["added"], value != .null {
                guard case .bool(let flag) = value else { throw JSONBody.Problem(message: "added: expected true or false") }
                added = flag
            }
            message = id
            emoji = symbol
        } catch {
            return error.response
        }
        do {
            try await session.transport.setReaction(emoji, on: message, in: session.channel, added: added)
            return HTTPServerResponse(status: 204)
        } catch {
            return Self.failure(error, doing: "react")
        }
    }

    /// `GET events`: the stream, resumed after `Last-Event-ID` (or `?after=`).
    private func events(_ request: HTTPServerRequest, bot: String) async -> HTTPServerResponse {
        guard let session = door.session(secret: request.cookie(Self.cookieName), bot: bot) else { return Self.noSession }
        let after = (request.header("last-event-id") ?? request.query["after"]).flatMap(VisitorEventPosition.init)
        // Room for a whole log replayed at once: nothing is taken before the answer starts.
        let stream = HTTPServerStream(limit: 2 << 20)
        await session.attach(stream, after: after)
        var answer = HTTPServerResponse.eventStream(stream)
        answer.headers.append((name: "X-Accel-Buffering", value: "no"))
        return answer
    }

    private static func preflight(_ origin: WebChatOrigin) -> HTTPServerResponse {
        guard case .allowed = origin else { return HTTPServerResponse(status: 204) }
        return HTTPServerResponse(status: 204, headers: [(name: "Access-Control-Allow-Methods", value: "GET, POST, OPTIONS"),
                                                         (name: "Access-Control-Allow-Headers", value: "Content-Type, Last-Event-ID"),
                                                         (name: "Access-Control-Max-Age", value: "600")])
    }

    static let noSession = OperationsRoutes.error(401, "no live session: POST session first (it sets the cookie)")

    static func tooMany(_ wait: Duration) -> HTTPServerResponse {
        var answer = OperationsRoutes.error(429, "too many requests: slow down")
        answer.headers.append((name: "Retry-After", value: String(max(1, Int(wait.timeInterval.rounded(.up))))))
        return answer
    }

    /// A hub refusal as the API answers it.
    private static func failure(_ error: any Error, doing what: String) -> HTTPServerResponse {
        guard let problem = error as? ParleyError else { return OperationsRoutes.error(500, "cannot \(what): \(error)") }
        switch problem.code {
        case .rateLimited: return tooMany(problem.retryAfter ?? .seconds(1))
        case .messageTooLarge: return OperationsRoutes.error(413, problem.message)
        case .notFound, .invalidArgument: return OperationsRoutes.error(400, problem.message)
        default: return OperationsRoutes.error(503, "cannot \(what) now: \(problem.message)")
        }
    }
}

/// A visitor's display name as kept: one line, no control characters, at most 64 characters.
enum VisitorName {
    static let `default` = "Visitor"

    static func clean(_ text: String) -> String {
        let visible = text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }
        return String(String(String.UnicodeScalarView(visible)).trimmingCharacters(in: .whitespaces).prefix(64))
    }
}
