import Foundation
import ParleyBots
import ParleyCore
import ParleyHTTPServer

/// `/api/v1/broadcasts…`: the jobs of `parley broadcast`, schedules and `broadcast:` actions,
/// listed, started, paused, resumed and cancelled through the host's `BotHost`.
extension AdminAPI {
    static let broadcastActions: Set<String> = ["pause", "resume", "cancel"]

    /// Every broadcast job with its progress, newest first.
    func broadcasts() -> HTTPServerResponse {
        guard let store = running.host.options.broadcasts?.store else { return .json(200, JSONValue.object(["broadcasts": []]).jsonData()) }
        do {
            return .json(200, JSONValue.object(["broadcasts": .array(try store.jobs().map(Self.json))]).jsonData())
        } catch {
            return OperationsRoutes.error(500, "cannot read the broadcast jobs: \(error.description)")
        }
    }

    /// `GET /api/v1/broadcasts/{id}`: one job.
    func broadcast(_ id: String) -> HTTPServerResponse {
        do {
            guard let job = try running.host.options.broadcasts?.store.job(id) else {
                return OperationsRoutes.error(404, "no broadcast with id '\(id)'")
            }
            return .json(200, Self.json(job).jsonData())
        } catch {
            return Self.answer(error)
        }
    }

    /// `POST /api/v1/broadcasts`: `{"bot", "to": [targets], "text" | "send": {…}, "rate"?, "id"?}`;
    /// 201 with the job when created, 200 with it when a job of that id exists.
    func startBroadcast(_ body: Data) async -> HTTPServerResponse {
        let order: BroadcastOrder
        do {
            order = try Self.order(JSONBody(body, known: ["id", "bot", "to", "text", "send", "rate"]))
        } catch {
            return error.response
        }
        guard running.bots.contains(where: { $0.id == order.bot }) else {
            return OperationsRoutes.error(400, "bot: no bot '\(order.bot)' in this host")
        }
        do {
            let (job, created) = try await running.host.startBroadcast(order)
            return Self.started(job, created: created)
        } catch {
            return Self.answer(error)
        }
    }

    /// `POST /api/v1/broadcasts/{id}/pause|resume|cancel`: the job after.
    func broadcastAction(_ action: String, job id: String) async -> HTTPServerResponse {
        let host = running.host
        do {
            let job: BroadcastJob
            switch action {
            case "pause": job = try await host.pauseBroadcast(id)
            case "cancel": job = try await host.cancelBroadcast(id)
            default: job = try host.resumeBroadcast(id)
            }
            return .json(200, Self.json(job).jsonData())
        } catch {
            return Self.answer(error)
        }
    }

    /// `GET /api/v1/broadcasts/{id}/failed`: `{"failed": [{"target", "code", "message", "attempts"}]}`.
    func broadcastFailures(_ id: String) -> HTTPServerResponse {
        do {
            guard let store = running.host.options.broadcasts?.store, try store.job(id) != nil else {
                return OperationsRoutes.error(404, "no broadcast with id '\(id)'")
            }
            let failures = try store.failures(job: id).map { failure in
                JSONValue.object(["target": .string(failure.channel.target), "code": .string(failure.code),
                                  "message": .string(failure.message), "attempts": .int(Int64(failure.attempts))])
            }
            return .json(200, JSONValue.object(["failed": .array(failures)]).jsonData())
        } catch {
            return Self.answer(error)
        }
    }

    /// `POST /api/v1/broadcasts/{id}/retry-failed` with an optional `{"id"}` for the new job:
    /// 201 with the new job (sending), 200 when a job of that id exists.
    func retryFailed(_ id: String, body: Data) -> HTTPServerResponse {
        let newID: String?
        do {
            newID = body.isEmpty ? nil : try Self.jobID(JSONBody(body, known: ["id"]))
        } catch {
            return error.response
        }
        do {
            let (job, created) = try running.host.retryFailedBroadcast(id, newID: newID)
            return Self.started(job, created: created)
        } catch {
            return Self.answer(error)
        }
    }

    /// 201 with a job created now and where it is, 200 with one that existed.
    private static func started(_ job: BroadcastJob, created: Bool) -> HTTPServerResponse {
        var answer = HTTPServerResponse.json(created ? 201 : 200, json(job).jsonData())
        if created { answer.headers.append((name: "Location", value: "/api/v1/broadcasts/\(job.id)")) }
        return answer
    }

    /// A request's job `id`, if it gives one.
    private static func jobID(_ body: JSONBody) throws(JSONBody.Problem) -> String? {
        guard let id = try body.string("id") else { return nil }
        guard !id.isEmpty, !id.contains("/"), id.count <= 200 else { throw JSONBody.Problem(message: "id: 1 to 200 characters, no '/'") }
        return id
    }

    /// The order a start request's body gives.
    private static func order(_ body: JSONBody) throws(JSONBody.Problem) -> BroadcastOrder {
        guard let bot = try body.string("bot", required: true) else { throw JSONBody.Problem(message: "bot: required") }
        guard let to = try body.strings("to"), !to.isEmpty else { throw JSONBody.Problem(message: "to: give at least one target (user:ID or group:ID)") }
        var order = BroadcastOrder(bot: bot, to: to)
        order.id = try jobID(body)
        switch (try body.string("text"), try body.stringObject("send")) {
        case (let text?, nil):
            order.text = text
        case (nil, var send?):
            order.text = send.removeValue(forKey: "text")
            order.card = send.removeValue(forKey: "card")
            guard order.text != nil || order.card != nil else { throw JSONBody.Problem(message: "send: give a text or a card") }
            order.fields = send
        case (_?, _?):
            throw JSONBody.Problem(message: "give 'text' or 'send', not both")
        case (nil, nil):
            throw JSONBody.Problem(message: "text: required (or a 'send' object)")
        }
        if let rate = try body.string("rate") {
            do { order.rate = try Rate(parsing: rate) } catch { throw JSONBody.Problem(message: "rate: \(error.message)") }
        }
        return order
    }

    /// A job as the API shows it. The pending recipients of a cancelled job are `cancelled`:
    /// they will never be sent to.
    static func json(_ job: BroadcastJob) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(job.id), "bot": .string(job.bot), "state": .string(job.state.rawValue), "origin": .string(job.origin),
            "created": .string(job.created.formatted(.iso8601)), "total": .int(Int64(job.total)),
            "sent": .int(Int64(job.sent)), "failed": .int(Int64(job.failed)), "pending": .int(Int64(job.pending - job.cancelled)),
        ]
        if job.cancelled > 0 { fields["cancelled"] = .int(Int64(job.cancelled)) }
        if let audience = job.audience {
            fields["audience"] = .string(audience)
            fields["opted_out"] = .int(Int64(job.optedOut))
        }
        if let finished = job.finished { fields["finished"] = .string(finished.formatted(.iso8601)) }
        return .object(fields)
    }

    /// 404 for an unknown job, 400 for a bad order, 409 for a job (or bot) in the wrong
    /// state, 500 for storage.
    static func answer(_ error: BroadcastError) -> HTTPServerResponse {
        switch error.code {
        case .unknownJob: OperationsRoutes.error(404, error.description)
        case .invalidRecipients, .noRecipients, .invalidMessage: OperationsRoutes.error(400, error.description)
        case .invalidState, .alreadyRunning, .botNotRunning: OperationsRoutes.error(409, error.description)
        default: OperationsRoutes.error(500, error.description)
        }
    }
}
