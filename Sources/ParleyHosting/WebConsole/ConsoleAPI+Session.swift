import Foundation
import ParleyCore
import ParleyHTTPServer

/// `POST /console/api/session` signs in with an agent's token, `DELETE` signs out.
extension ConsoleAPI {
    /// `{"token"}` → 200 `{"agent", "queues", "csrf"}` and the session cookie; 401 for a token
    /// that is no agent's. The cookie is `HttpOnly` (no script reads it), `SameSite=Strict`
    /// (no other site's page sends it) and only for `/console`.
    ///
    /// Each sign-in is logged, a refused one with the client's address (never the token): a
    /// run of refusals is someone guessing.
    func signIn(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let token: String
        do throws(JSONBody.Problem) {
            guard let given = try JSONBody(request.body, known: ["token"]).string("token", required: true) else {
                throw JSONBody.Problem(message: "token: required")
            }
            token = given
        } catch {
            return error.response
        }
        let host = running.host
        guard let agent = agents.agent(token: token) else {
            host.logger.log(.warn, at: host.clock.now(), bot: nil, "console sign-in refused", ["address": request.remoteAddress])
            return OperationsRoutes.error(401, "wrong agent token")
        }
        let (secret, session) = sessions.open(for: agent)
        host.logger.log(.info, at: host.clock.now(), bot: nil, "console sign-in", ["agent": agent.id])
        var answer = HTTPServerResponse.json(200, JSONValue.object([
            "agent": .string(agent.id), "queues": .array(agent.queues.map(JSONValue.string)), "csrf": .string(session.csrf),
        ]).jsonData())
        answer.headers.append((name: "Set-Cookie", value: Self.cookie(secret, maxAge: nil)))
        return answer
    }

    /// Ends the caller's session (its event streams end) and clears the cookie: 204. A
    /// script's Bearer request has no session: 204 all the same.
    func signOut(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let caller: ConsoleCaller
        switch self.caller(request) {
        case .success(let found): caller = found
        case .failure(let refusal): return refusal.response
        }
        var answer = HTTPServerResponse(status: 204)
        if let secret = caller.session {
            sessions.close(secret)
            answer.headers.append((name: "Set-Cookie", value: Self.cookie("", maxAge: 0)))
        }
        return answer
    }

    /// The session cookie; `maxAge` 0 deletes it.
    static func cookie(_ value: String, maxAge: Int?) -> String {
        "\(ConsoleCaller.cookie)=\(value); HttpOnly; SameSite=Strict; Path=/console" + (maxAge.map { "; Max-Age=\($0)" } ?? "")
    }
}
