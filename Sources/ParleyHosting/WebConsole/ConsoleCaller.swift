import Foundation
import ParleyHTTPServer

/// Who is calling the console API, once their request was authenticated: a signed-in session
/// (cookie and CSRF header) or a script with an agent's token.
struct ConsoleCaller: Sendable {
    let agent: ConsoleAgent
    /// The session's secret; nil for `Authorization: Bearer`.
    let session: String?

    static let cookie = "parley_console"
    static let csrfHeader = "X-Parley-CSRF"

    /// Authenticates `request`: `Authorization: Bearer <agent token>`, or the session cookie
    /// with `X-Parley-CSRF` equal to the session's value. The cookie alone is not enough: a
    /// browser sends it with whatever a page makes it send, while only the console's own
    /// page, which was given the CSRF value at sign-in, can set the header. (An event stream
    /// may give the value as `?csrf=` instead: `EventSource` cannot set headers, and a GET
    /// changes nothing.)
    ///
    /// 401 without credentials or with wrong or expired ones; 403 for a live session's
    /// cookie without the header or with a wrong value.
    static func authenticate(_ request: HTTPServerRequest, agents: ConsoleAgents, sessions: ConsoleSessions,
                             csrfInQuery: Bool = false) -> Result<ConsoleCaller, HTTPRefusal> {
        if let authorization = request.header("authorization") {
            guard authorization.hasPrefix("Bearer "), let agent = agents.agent(token: String(authorization.dropFirst(7))) else {
                return .failure(HTTPRefusal(401, "wrong agent token"))
            }
            return .success(ConsoleCaller(agent: agent, session: nil))
        }
        guard let secret = request.cookie(Self.cookie), let session = sessions.use(secret) else {
            return .failure(HTTPRefusal(401, "not signed in: POST /console/api/session with your token, or send Authorization: Bearer"))
        }
        guard let given = request.header(Self.csrfHeader) ?? (csrfInQuery ? request.query["csrf"] : nil) else {
            return .failure(HTTPRefusal(403, "the \(Self.csrfHeader) header is missing: send the csrf value the sign-in answered"))
        }
        guard OperationsRoutes.constantTimeEqual(given, session.csrf) else {
            return .failure(HTTPRefusal(403, "the \(Self.csrfHeader) header does not match this session"))
        }
        return .success(ConsoleCaller(agent: session.agent, session: secret))
    }
}
