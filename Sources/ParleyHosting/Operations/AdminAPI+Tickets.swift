import Foundation
import ParleyBots
import ParleyCore
import ParleyHTTPServer

/// `/api/v1/tickets…`: the hand-off tickets, listed, and taken, answered and resolved through
/// the path of the agents' chat commands (`BotHost.ticketAction`).
extension AdminAPI {
    /// Tickets, newest first: `?queue=` (default: all), `?status=open,taken,resolved` or
    /// `all` (default: open and taken), `?limit=` (default 100, at most 1,000).
    func tickets(_ query: [String: String]) -> HTTPServerResponse {
        var statuses: Set<Ticket.Status> = [.open, .taken]
        if let text = query["status"] {
            statuses = []
            for word in text.split(separator: ",") where word != "all" {
                guard let status = Ticket.Status(rawValue: String(word)) else {
                    return OperationsRoutes.error(400, "unknown status '\(word)': expected open, taken, resolved or all")
                }
                statuses.insert(status)
            }
        }
        var limit = 100
        if let text = query["limit"] {
            guard let number = Int(text), (1...1_000).contains(number) else {
                return OperationsRoutes.error(400, "limit '\(text)': expected a number from 1 to 1000")
            }
            limit = number
        }
        do {
            let found = try running.host.store.listTickets(queue: query["queue"], statuses: statuses, limit: limit)
            return .json(200, JSONValue.object(["tickets": .array(found.map(Self.json))]).jsonData())
        } catch {
            return OperationsRoutes.error(500, "cannot read the tickets: \(error)")
        }
    }

    /// `POST /api/v1/tickets/{queue}/{number}/take|reply|resolve` with `{"agent": ID}` (and
    /// `"text"` for a reply): the ticket after.
    func ticketAction(_ verb: String, queue: String, number text: String, body: Data) async -> HTTPServerResponse {
        let number: Int
        switch TicketActionRequest.number(text, queue: queue) {
        case .success(let found): number = found
        case .failure(let refusal): return refusal.response
        }
        let action: TicketAction
        let agent: String
        do throws(JSONBody.Problem) {
            let fields = try JSONBody(body, known: TicketActionRequest.fields(of: verb).union(["agent"]))
            guard let id = try fields.string("agent", required: true) else { throw JSONBody.Problem(message: "agent: required") }
            agent = id
            action = try TicketActionRequest.action(verb, body: fields)
        } catch {
            return error.response
        }
        switch await TicketActionRequest.perform(action, queue: queue, number: number, agent: agent, on: running.host) {
        case .success(let ticket): return .json(200, Self.json(ticket).jsonData())
        case .failure(let refusal): return refusal.response
        }
    }

    /// A ticket as the API shows it.
    static func json(_ ticket: Ticket) -> JSONValue {
        var fields: [String: JSONValue] = [
            "number": .int(Int64(ticket.number)), "queue": .string(ticket.queue), "bot": .string(ticket.bot),
            "user": .string(ticket.user), "channel": .string(ticket.channel), "status": .string(ticket.status.rawValue),
        ]
        if let agent = ticket.agent { fields["agent"] = .string(agent) }
        if let opened = ticket.openedAt { fields["opened"] = .string(opened.formatted(.iso8601)) }
        if let resolved = ticket.resolvedAt { fields["resolved"] = .string(resolved.formatted(.iso8601)) }
        return .object(fields)
    }
}
