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
        default:
            return OperationsRoutes.error(404, "no such endpoint: \(request.path)")
        }
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
            if let ago = health[bot.id]?.lastSyncSecondsAgo { fields["last_sync_seconds_ago"] = .double((ago * 10).rounded() / 10) }
            return .object(fields)
        })])
    }
}
