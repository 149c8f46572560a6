import Foundation
import ParleyBots
import ParleyCore
import ParleyHTTPServer

/// `/api/v1/…`, once the token was checked: JSON in, JSON out.
struct AdminAPI: Sendable {
    let running: RunningHost

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let prefix = "/api/v1/"
        let parts = request.path.hasPrefix(prefix) ? request.path.dropFirst(prefix.count).split(separator: "/").map(String.init) : []
        switch (parts.first, parts.count) {
        case ("bots", 1):
            guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET") }
            return .json(200, bots().jsonData())
        case ("broadcasts", 1):
            if request.method == "POST" { return await startBroadcast(request.body) }
            guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET, POST") }
            return broadcasts()
        case ("broadcasts", 2):
            guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET") }
            return broadcast(parts[1])
        case ("broadcasts", 3) where parts[2] == "failed":
            guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET") }
            return broadcastFailures(parts[1])
        case ("broadcasts", 3) where parts[2] == "retry-failed":
            guard request.method == "POST" else { return OperationsRoutes.methodNotAllowed("POST") }
            return retryFailed(parts[1], body: request.body)
        case ("broadcasts", 3) where Self.broadcastActions.contains(parts[2]):
            guard request.method == "POST" else { return OperationsRoutes.methodNotAllowed("POST") }
            return await broadcastAction(parts[2], job: parts[1])
        case ("audiences", _):
            return audiences(Array(parts.dropFirst()), method: request.method, body: request.body)
        case ("tickets", 1):
            guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET") }
            return tickets(request.query)
        case ("tickets", 4) where TicketActionRequest.verbs.contains(parts[3]):
            guard request.method == "POST" else { return OperationsRoutes.methodNotAllowed("POST") }
            return await ticketAction(parts[3], queue: parts[1], number: parts[2], body: request.body)
        case ("reload", 1):
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
}
