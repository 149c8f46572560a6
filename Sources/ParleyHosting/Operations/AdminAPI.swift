import Foundation
import ParleyBots
import ParleyCore
import ParleyHTTPServer

/// `/api/v1/…`, once the token was checked: JSON in, JSON out.
struct AdminAPI: Sendable {
    let running: RunningHost

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        switch request.path {
        case "/api/v1/bots":
            guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET") }
            return .json(200, bots().jsonData())
        case "/api/v1/broadcasts":
            guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET") }
            return broadcasts()
        case "/api/v1/tickets":
            guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET") }
            return tickets(request.query)
        case "/api/v1/reload":
            guard request.method == "POST" else { return OperationsRoutes.methodNotAllowed("POST") }
            return await reload()
        default:
            return OperationsRoutes.error(404, "no such endpoint: \(request.path)")
        }
    }

    /// Loads and checks the config again and applies it: 200 with what changed, 422 with the
    /// errors (nothing changed), 500 when new bots could not connect (the rest applied).
    func reload() async -> HTTPServerResponse {
        let report = await running.reload()
        let status = switch report.result {
        case .ok: 200
        case .invalid: 422
        case .failed: 500
        }
        return .json(status, report.json.jsonData())
    }

    /// Every bot of the config: what it can do and how it is doing.
    func bots() -> JSONValue {
        let health = running.health().bots, started = Set(running.host.runningBots)
        return .object(["bots": .array(running.bots.map { bot in
            let outline = bot.outline
            var fields: [String: JSONValue] = [
                "id": .string(bot.id), "name": .string(bot.name),
                "state": .string(started.contains(bot.id) ? "running" : "stopped"),
                "health": .string(health[bot.id]?.status ?? "unknown"),
                "commands": .array(outline.commands.map { .string(bot.prefix + $0) }),
                "flows": .object(outline.flows.mapValues { .array($0.map(JSONValue.string)) }),
                "triggers": .int(Int64(outline.triggers)),
                "schedules": .array(outline.schedules.map {
                    .object(["name": .string($0.name), "cron": .string($0.cron), "timezone": .string($0.timezone)])
                }),
                "queues": .array(outline.queues.map(JSONValue.string)),
            ]
            fields["last_sync_seconds_ago"] = health[bot.id]?.lastSyncJSON
            return .object(fields)
        })])
    }

    /// Every broadcast job with its progress, newest first.
    func broadcasts() -> HTTPServerResponse {
        guard let store = running.host.options.broadcasts?.store else { return .json(200, JSONValue.object(["broadcasts": []]).jsonData()) }
        do {
            return .json(200, JSONValue.object(["broadcasts": .array(try store.jobs().map { job in
                var fields: [String: JSONValue] = [
                    "id": .string(job.id), "bot": .string(job.bot), "state": .string(job.state.rawValue), "origin": .string(job.origin),
                    "created": .string(job.created.formatted(.iso8601)), "total": .int(Int64(job.total)),
                    "sent": .int(Int64(job.sent)), "failed": .int(Int64(job.failed)), "pending": .int(Int64(job.pending)),
                ]
                if let finished = job.finished { fields["finished"] = .string(finished.formatted(.iso8601)) }
                return .object(fields)
            })]).jsonData())
        } catch {
            return OperationsRoutes.error(500, "cannot read the broadcast jobs: \(error.description)")
        }
    }

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
            return .json(200, JSONValue.object(["tickets": .array(found.map { ticket in
                var fields: [String: JSONValue] = [
                    "number": .int(Int64(ticket.number)), "queue": .string(ticket.queue), "bot": .string(ticket.bot),
                    "user": .string(ticket.user), "channel": .string(ticket.channel), "status": .string(ticket.status.rawValue),
                ]
                if let agent = ticket.agent { fields["agent"] = .string(agent) }
                if let opened = ticket.openedAt { fields["opened"] = .string(opened.formatted(.iso8601)) }
                if let resolved = ticket.resolvedAt { fields["resolved"] = .string(resolved.formatted(.iso8601)) }
                return .object(fields)
            })]).jsonData())
        } catch {
            return OperationsRoutes.error(500, "cannot read the tickets: \(error)")
        }
    }
}
