import Foundation
import ParleyBots
import ParleyHTTPServer

/// `/console/api/tickets/{queue}/{number}[/take|reply|resolve]`: one ticket with its
/// conversation, and the agent's actions on it, as the signed-in agent, through the path the
/// admin API and the chat commands take (`TicketActionRequest`).
extension ConsoleAPI {
    /// The ticket with its last messages; 403 for a queue not the agent's (before anything
    /// is looked up: the answer tells nothing of other queues), 404 for an unknown ticket.
    func ticket(_ request: HTTPServerRequest, queue: String, number text: String) async -> HTTPServerResponse {
        let number: Int
        switch permitted(request, queue: queue, number: text) {
        case .success(let checked): number = checked.number
        case .failure(let refusal): return refusal.response
        }
        let ticket: Ticket?
        do { ticket = try running.host.ticket(queue: queue, number: number) } catch {
            return TicketActionRequest.answer(error)
        }
        guard let ticket else { return OperationsRoutes.error(404, "queue '\(queue)' has no ticket #\(number)") }
        return .json(200, await ConsoleTicketJSON.detail(ticket, host: running.host).jsonData())
    }

    /// `take`, `reply {"text"}` or `resolve` as the signed-in agent: the ticket after, with
    /// its conversation.
    func act(_ verb: String, _ request: HTTPServerRequest, queue: String, number text: String) async -> HTTPServerResponse {
        let caller: ConsoleCaller, number: Int
        switch permitted(request, queue: queue, number: text) {
        case .success(let checked): (caller, number) = checked
        case .failure(let refusal): return refusal.response
        }
        let action: TicketAction
        do throws(JSONBody.Problem) {
            action = try TicketActionRequest.action(verb, body: JSONBody(request.body, known: TicketActionRequest.fields(of: verb)))
        } catch {
            return error.response
        }
        switch await TicketActionRequest.perform(action, queue: queue, number: number, agent: caller.agent.id, on: running.host) {
        case .success(let ticket):
            return .json(200, await ConsoleTicketJSON.detail(ticket, host: running.host).jsonData())
        case .failure(let refusal):
            return refusal.response
        }
    }

    /// The caller, when signed in and an agent of `queue`, and the ticket number of the path.
    private func permitted(_ request: HTTPServerRequest, queue: String, number text: String) -> Result<(ConsoleCaller, number: Int), HTTPRefusal> {
        caller(request).flatMap { caller in
            guard caller.agent.serves(queue) else {
                return .failure(HTTPRefusal(403, "queue '\(queue)' is not one of agent '\(caller.agent.id)''s queues"))
            }
            return TicketActionRequest.number(text, queue: queue).map { (caller, $0) }
        }
    }
}
