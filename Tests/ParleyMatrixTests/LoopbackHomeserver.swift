import Foundation
import ParleyCore
import ParleyTesting
@testable import ParleyMatrix

/// Just enough of a homeserver on loopback for `MatrixTransport.connect()` and its sync loop,
/// for what Synapse cannot be made to do on cue (thousands of events, many invites at once):
/// the account is `@bot:localhost` with a token, `/sync` answers come from `sync` (given the
/// request's `since`, nil for the first), joins and leaves succeed.
struct LoopbackHomeserver {
    static let user = "@bot:localhost"
    let server: LoopbackHTTPServer

    /// `respond` answers first, when it has an answer for a request (its path percent-decoded).
    init(joinedRooms: [String] = [], sync: @escaping @Sendable (_ since: String?) -> String,
         respond: @escaping @Sendable (LoopbackHTTPServer.Request, _ path: String) -> LoopbackHTTPServer.Answer? = { _, _ in nil }) throws {
        let joined = #"{"joined_rooms":["# + joinedRooms.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
        server = try LoopbackHTTPServer { request in
            let components = URLComponents(string: request.path)
            let path = components?.path ?? request.path
            if let answer = respond(request, path.removingPercentEncoding ?? path) { return answer }
            let room = path.split(separator: "/").dropLast(path.hasSuffix("/leave") ? 1 : 0).last.map(String.init) ?? ""
            switch path {
            case _ where path.hasSuffix("/account/whoami"): return .init(status: 200, body: #"{"user_id":"\#(Self.user)","device_id":"D"}"#)
            case _ where path.hasSuffix("/filter"): return .init(status: 200, body: #"{"filter_id":"f1"}"#)
            case _ where path.hasSuffix("/joined_rooms"): return .init(status: 200, body: joined)
            case _ where path.contains("/account_data/"): return .init(status: 404, body: #"{"errcode":"M_NOT_FOUND","error":"none"}"#)
            case _ where path.hasSuffix("/sync"):
                return .init(status: 200, body: sync(components?.queryItems?.first { $0.name == "since" }?.value))
            case _ where path.contains("/join/"): return .init(status: 200, body: #"{"room_id":"\#(room)"}"#)
            case _ where path.hasSuffix("/leave"): return .init(status: 200, body: "{}")
            default: return .init(status: 404, body: #"{"errcode":"M_UNRECOGNIZED","error":"not faked"}"#)
            }
        }
    }

    /// A transport of `@bot:localhost` on this server, its database in a fresh temporary file.
    func transport(_ adjust: (inout MatrixConfiguration) -> Void = { _ in }) throws -> MatrixTransport {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-loopback-\(UUID().uuidString).db").path
        var config = MatrixConfiguration(homeserver: server.url, userID: Self.user, credentials: .accessToken("t"), databasePath: path)
        config.requestTimeout = .seconds(5)
        config.log = { _ in }
        adjust(&config)
        return try MatrixTransport(configuration: config)
    }

    /// Paths of the requests so far (percent-decoded, without queries).
    var paths: [String] {
        server.requests.map { (URLComponents(string: $0.path)?.path ?? $0.path).removingPercentEncoding ?? $0.path }
    }

    /// A sync answer: `next_batch`, plus `rooms` (a JSON object's members, like `"join":{…}`).
    static func sync(next: String, rooms: String = "") -> String {
        #"{"next_batch":"\#(next)","rooms":{\#(rooms)}}"#
    }

    /// A text message event.
    static func message(_ id: String, from sender: String = "@alice:localhost", text: String) -> String {
        #"{"event_id":"\#(id)","type":"m.room.message","sender":"\#(sender)","origin_server_ts":1767225600000,"content":{"msgtype":"m.text","body":"\#(text)"}}"#
    }
}
