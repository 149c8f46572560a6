import Foundation
import ParleyBots
import ParleyHTTPServer

/// The one way from an HTTP request to `BotHost.ticketAction`, shared by the admin API
/// (`/api/v1/tickets/{queue}/{number}/{verb}`) and the agents' console
/// (`/console/api/tickets/…`): the verbs, the ticket number of the path, a reply's text, and
/// what each refusal answers. The two differ only in who the agent is (a body field, the
/// signed-in agent) and how the ticket is shown after.
enum TicketActionRequest {
    static let verbs: Set<String> = ["take", "reply", "resolve"]

    /// The body fields `verb` reads: a reply's text.
    static func fields(of verb: String) -> Set<String> { verb == "reply" ? ["text"] : [] }

    /// The ticket number of the path; 404 for anything but a positive number.
    static func number(_ text: String, queue: String) -> Result<Int, HTTPRefusal> {
        guard let number = Int(text), number > 0 else {
            return .failure(HTTPRefusal(404, "queue '\(queue)' has no ticket '\(text)'"))
        }
        return .success(number)
    }

    /// The action `verb` (one of `verbs`) asks for, a reply's text read from `body`.
    static func action(_ verb: String, body: JSONBody) throws(JSONBody.Problem) -> TicketAction {
        switch verb {
        case "take": return .take
        case "resolve": return .resolve
        default:
            guard let text = try body.string("text", required: true) else { throw JSONBody.Problem(message: "text: required") }
            return .reply(text)
        }
    }

    /// Carries out `action` on ticket `number` of `queue` as `agent`, through the agents' chat
    /// commands' path: the ticket after, or the refusal's answer — 404 for a queue no running
    /// bot hands off to or an unknown ticket, 409 for a resolved one or one another agent
    /// holds, 502 for a reply the server did not take.
    static func perform(_ action: TicketAction, queue: String, number: Int, agent: String, on host: BotHost) async -> Result<Ticket, HTTPRefusal> {
        do {
            return .success(try await host.ticketAction(action, queue: queue, number: number, agent: agent))
        } catch {
            return .failure(HTTPRefusal(response: answer(error)))
        }
    }

    /// The answer to a refused ticket action or look-up.
    static func answer(_ error: TicketError) -> HTTPServerResponse {
        switch error.code {
        case .unknownQueue, .unknownTicket: OperationsRoutes.error(404, error.message)
        case .resolved, .takenByAnother: OperationsRoutes.error(409, error.message)
        case .sendFailed: OperationsRoutes.error(502, error.message)
        default: OperationsRoutes.error(500, error.message)
        }
    }
}
