import Foundation

/// One request as the handler sees it: everything libmicrohttpd parsed, and the whole body.
public struct HTTPServerRequest: Sendable {
    /// `GET`, `POST`, … as the client sent it.
    public var method: String
    /// The URL path as libmicrohttpd gives it (percent-decoded), without the query.
    public var path: String
    /// The query arguments, percent-decoded; an argument without `=` has an empty value, a
    /// repeated one its last.
    public var query: [String: String]
    /// Header values by lower-cased name; a repeated header's values joined with ", ".
    public var headers: [String: String]
    /// The body (at most `HTTPServerOptions.maxBodyBytes`).
    public var body: Data
    /// The client's IP address, without the port: "127.0.0.1", "::1".
    public var remoteAddress: String

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: Data = Data(), remoteAddress: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What the handler answers. libmicrohttpd adds `Content-Length` (one set here is ignored) or,
/// for a stream, `Transfer-Encoding: chunked`, and `Date` and `Connection`; a header
/// libmicrohttpd refuses (a name or value with a line break) is left out.
public struct HTTPServerResponse: Sendable {
    /// The status code; one outside 200...999 is sent as 500.
    public var status: Int
    /// Headers, in order.
    public var headers: [(name: String, value: String)]
    /// The body (not sent to a `HEAD` request, nor with 204 or 304).
    public var body: Data
    /// When set, the body is this stream, sent as it is written, and `body` is ignored.
    public var stream: HTTPServerStream?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// An answer whose body is `body`, sent as the handler writes it (see `HTTPServerStream`).
    public static func stream(status: Int = 200, headers: [(name: String, value: String)] = [], body: HTTPServerStream) -> HTTPServerResponse {
        var answer = HTTPServerResponse(status: status, headers: headers)
        answer.stream = body
        return answer
    }

    /// A `text/event-stream` answer (Server-Sent Events), not to be cached.
    public static func eventStream(_ events: HTTPServerStream) -> HTTPServerResponse {
        stream(headers: [(name: "Content-Type", value: "text/event-stream"), (name: "Cache-Control", value: "no-cache")], body: events)
    }

    /// A `text/plain; charset=utf-8` answer.
    public static func text(_ status: Int, _ text: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [(name: "Content-Type", value: "text/plain; charset=utf-8")], body: Data(text.utf8))
    }

    /// An `application/json` answer of an already encoded body.
    public static func json(_ status: Int, _ body: Data) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [(name: "Content-Type", value: "application/json")], body: body)
    }
}
