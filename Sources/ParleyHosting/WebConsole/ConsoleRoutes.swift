import Foundation
import ParleyBots
import ParleyHTTPServer
import ParleyWebAssets

/// The agents' console: the page at `/console` and its API under `/console/api/` (see
/// docs/WEB.md). `OperationsRoutes` hands it every path it `claims`.
struct ConsoleRoutes: Sendable {
    let running: RunningHost
    let agents: ConsoleAgents
    let sessions: ConsoleSessions
    let conversations = ConversationCache()

    static let apiPrefix = "/console/api/"

    init(running: RunningHost, agents: OrderedMap<AgentLogin>?) {
        self.running = running
        self.agents = ConsoleAgents(agents)
        sessions = ConsoleSessions(clock: running.host.clock, changes: running.changes)
    }

    /// Whether `path` is the console's: `/console` and everything under `/console/`.
    static func claims(_ path: String) -> Bool { path == "/console" || path.hasPrefix("/console/") }

    /// The page: static, answered on the listener's thread. Nil for the API.
    func answerAtOnce(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        guard !request.path.hasPrefix(Self.apiPrefix) else { return nil }
        guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET, HEAD") }
        // The page and its assets (ParleyWebAssets), with the same policy and headers as the
        // widget's page; the console is framed by nobody but the listener's own pages.
        if request.path == "/console" {
            return HTTPServerResponse(status: 200, headers: WebChatPages.pageHeaders(frameAncestors: []), body: WebAssets.consolePage())
        }
        let asset = String(request.path.dropFirst("/console/assets/".count))
        if request.path.hasPrefix("/console/assets/"), WebAssets.consoleAssetNames.contains(asset) {
            return WebChatPages.asset(asset)
        }
        return OperationsRoutes.error(404, "no such page: \(request.path)")
    }

    /// Everything under `/console`, off the listener's thread.
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        if let page = answerAtOnce(request) { return page }
        guard !agents.all.isEmpty else {
            return OperationsRoutes.error(403, "the agents' console is off: add agents under http.agents in config.yaml")
        }
        let parts = request.path.dropFirst(Self.apiPrefix.count).split(separator: "/").map(String.init)
        let api = ConsoleAPI(running: running, agents: agents, sessions: sessions, conversations: conversations)
        switch (parts.first, parts.count) {
        case ("session", 1):
            switch request.method {
            case "POST": return api.signIn(request)
            case "DELETE": return api.signOut(request)
            default: return OperationsRoutes.methodNotAllowed("POST, DELETE")
            }
        case ("events", 1):
            guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET") }
            return api.events(request)
        case ("tickets", 3):
            guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET") }
            return await api.ticket(request, queue: parts[1], number: parts[2])
        case ("tickets", 4) where TicketActionRequest.verbs.contains(parts[3]):
            guard request.method == "POST" else { return OperationsRoutes.methodNotAllowed("POST") }
            return await api.act(parts[3], request, queue: parts[1], number: parts[2])
        default:
            return OperationsRoutes.error(404, "no such endpoint: \(request.path)")
        }
    }
}

/// The console API's endpoints, once routed (`ConsoleAPI+…`).
struct ConsoleAPI: Sendable {
    let running: RunningHost
    let agents: ConsoleAgents
    let sessions: ConsoleSessions
    let conversations: ConversationCache

    /// The caller of `request`, or the refusal's answer.
    func caller(_ request: HTTPServerRequest, csrfInQuery: Bool = false) -> Result<ConsoleCaller, HTTPRefusal> {
        ConsoleCaller.authenticate(request, agents: agents, sessions: sessions, csrfInQuery: csrfInQuery)
    }
}
