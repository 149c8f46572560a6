import Foundation
import ParleyBots
import ParleyCore
import ParleyHTTPServer
import ParleyMetrics

/// What the operations listener answers: `/healthz`, `/metrics`, the admin API under
/// `/api/v1/` (Bearer token), and the agents' console under `/console` (`ConsoleRoutes`).
struct OperationsRoutes: Sendable {
    let running: RunningHost
    /// `http.admin_token`; nil: the API is closed.
    let adminToken: String?
    /// The visitors' chat (`http.web_chat`); nil: `/chat/` is not served.
    let webChat: WebChatRoutes?
    /// The agents' console (`http.agents`).
    let console: ConsoleRoutes

    /// What needs no waiting, answered on the listener's thread: `/healthz` (one lock) and
    /// the refusals of requests that will not be served; nil for the rest.
    func answerAtOnce(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        switch request.path {
        case "/healthz":
            guard Self.isRead(request.method) else { return Self.methodNotAllowed("GET, HEAD") }
            let (health, json) = running.healthAnswer()
            return .json(health.ok ? 200 : 503, json)
        case "/metrics":
            return Self.isRead(request.method) ? nil : Self.methodNotAllowed("GET, HEAD")
        case _ where request.path.hasPrefix("/chat/") && webChat != nil:
            return webChat?.answerAtOnce(request)
        default:
            if ConsoleRoutes.claims(request.path) { return console.answerAtOnce(request) }
            guard request.path.hasPrefix("/api/") else { return Self.error(404, "no such page: \(request.path)") }
            return authorize(request)
        }
    }

    /// Everything: what `answerAtOnce` answers (the listener asks it first, on its own
    /// thread), then `/metrics` and the admin API, which wait on the bots and stores.
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        if let answer = answerAtOnce(request) { return answer }
        if ConsoleRoutes.claims(request.path) { return await console.handle(request) }
        if request.path == "/metrics" {
            return HTTPServerResponse(status: 200, headers: [(name: "Content-Type", value: MetricsRegistry.contentType)],
                                      body: Data(await running.metrics.registry.exposition().utf8))
        }
        if let webChat, request.path.hasPrefix("/chat/") { return await webChat.handle(request) }
        return await AdminAPI(running: running).handle(request)
    }

    /// 401 without the right `Authorization: Bearer …` (compared in constant time), 403 when
    /// no token is configured; nil when the request may go on.
    private func authorize(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        guard let adminToken else {
            return Self.error(403, "the admin API is off: set http.admin_token in config.yaml")
        }
        let given = request.header("authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        guard let given, Self.constantTimeEqual(given, adminToken) else {
            var answer = Self.error(401, "missing or wrong bearer token")
            answer.headers.append((name: "WWW-Authenticate", value: "Bearer realm=\"parley\""))
            return answer
        }
        return nil
    }

    /// Compares every byte whatever the first difference: the time taken tells nothing about
    /// how much of a guess was right.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }

    static func isRead(_ method: String) -> Bool { method == "GET" || method == "HEAD" }

    /// `{"error": message}` with `status`.
    static func error(_ status: Int, _ message: String) -> HTTPServerResponse {
        .json(status, JSONValue.object(["error": .string(message)]).jsonData())
    }

    static func methodNotAllowed(_ allowed: String) -> HTTPServerResponse {
        var answer = error(405, "method not allowed: use \(allowed)")
        answer.headers.append((name: "Allow", value: allowed))
        return answer
    }
}
