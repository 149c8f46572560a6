import Foundation
import ParleyBots
import ParleyCore
import ParleyHTTPServer

/// `/api/v1/audiences…`: the running bots' audiences (`audiences:` in their files) with their
/// members, and subscriptions and opt-outs by an operator (stored with the source `api`).
extension AdminAPI {
    /// Routes `audiences`, `audiences/{bot}/{name}` and `audiences/{bot}/{name}/subscribe|unsubscribe`.
    func audiences(_ path: [String], method: String, body: Data) -> HTTPServerResponse {
        guard let store = running.host.options.broadcasts?.store else {
            return OperationsRoutes.error(404, "this host keeps no broadcast store, so no audiences")
        }
        switch path.count {
        case 0:
            guard OperationsRoutes.isRead(method) else { return OperationsRoutes.methodNotAllowed("GET") }
            return list(store)
        case 2:
            guard OperationsRoutes.isRead(method) else { return OperationsRoutes.methodNotAllowed("GET") }
            guard known(bot: path[0], audience: path[1]) else { return unknown(path[0], path[1]) }
            do {
                let members = try store.members(bot: path[0], audience: path[1]).map { JSONValue.string($0.target) }
                return .json(200, JSONValue.object(["bot": .string(path[0]), "audience": .string(path[1]), "members": .array(members)]).jsonData())
            } catch {
                return Self.answer(error)
            }
        case 3 where path[2] == "subscribe" || path[2] == "unsubscribe":
            guard method == "POST" else { return OperationsRoutes.methodNotAllowed("POST") }
            guard known(bot: path[0], audience: path[1]) else { return unknown(path[0], path[1]) }
            return choose(path[2] == "subscribe", bot: path[0], audience: path[1], body: body, store: store)
        default:
            return OperationsRoutes.error(404, "no such endpoint: /api/v1/audiences/" + path.joined(separator: "/"))
        }
    }

    /// Every audience of the running bots, with its members, opt-outs and last-7-days growth.
    private func list(_ store: BroadcastStore) -> HTTPServerResponse {
        do {
            let now = running.host.clock.now()
            let summaries = try store.audienceSummaries(since: now.addingTimeInterval(-7 * 86_400))
            var items: [JSONValue] = []
            for bot in running.bots {
                for audience in bot.audienceOutline {
                    let summary = summaries.first { $0.bot == bot.id && $0.audience == audience.name }
                    var fields: [String: JSONValue] = [
                        "bot": .string(bot.id), "audience": .string(audience.name),
                        "members": .int(Int64(summary?.members ?? 0)), "opted_out": .int(Int64(summary?.optedOut ?? 0)),
                        "joined_7d": .int(Int64(summary?.joined ?? 0)), "left_7d": .int(Int64(summary?.left ?? 0)),
                    ]
                    if let description = audience.description { fields["description"] = .string(description) }
                    items.append(.object(fields))
                }
            }
            return .json(200, JSONValue.object(["audiences": .array(items)]).jsonData())
        } catch {
            return Self.answer(error)
        }
    }

    /// `{"target": "user:ID"}` opted in or out: 200 with whether that changed anything.
    private func choose(_ subscribed: Bool, bot: String, audience: String, body: Data, store: BroadcastStore) -> HTTPServerResponse {
        let text: String
        do {
            text = try JSONBody(body, known: ["target"]).string("target", required: true) ?? ""
        } catch {
            return error.response
        }
        let target: Channel
        do { target = try BroadcastRecipients.parse(text) } catch { return OperationsRoutes.error(400, "target: \(error.message)") }
        do {
            let now = running.host.clock.now()
            let changed = subscribed
                ? try store.subscribe(bot: bot, audience: audience, target: target.target, source: .api, now: now)
                : try store.unsubscribe(bot: bot, audience: audience, target: target.target, source: .api, now: now)
            return .json(200, JSONValue.object(["target": .string(target.target), "subscribed": .bool(subscribed),
                                                "changed": .bool(changed)]).jsonData())
        } catch {
            return Self.answer(error)
        }
    }

    private func known(bot: String, audience: String) -> Bool {
        running.bots.contains { $0.id == bot && $0.audienceOutline.contains { $0.name == audience } }
    }

    private func unknown(_ bot: String, _ audience: String) -> HTTPServerResponse {
        OperationsRoutes.error(404, "no audience '\(audience)' of a bot '\(bot)' in this host")
    }
}
