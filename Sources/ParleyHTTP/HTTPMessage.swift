import Foundation

/// One HTTP request: what `HTTPClient.send` takes.
public struct HTTPRequest: Sendable {
    /// `GET`, `PUT`, `POST`, `DELETE`, …
    public var method: String
    /// The absolute URL, already percent-encoded.
    public var url: String
    /// Request headers, in order.
    public var headers: [(name: String, value: String)]
    /// The body, sent with `Content-Length`; nil sends none.
    public var body: Data?
    /// The longest the whole exchange may take, connecting included.
    public var timeout: Duration
    /// The largest answer body read: a larger one fails with `HTTPFailure.tooLarge` without
    /// the rest being read (a `Content-Length` over it is refused before any byte).
    public var responseLimit: Int
    /// The answer headers to keep, by lower-cased name; nil keeps every one. The others are
    /// not made into strings: a caller that reads two headers spares a dozen per answer.
    public var keptHeaders: [String]?

    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: Data? = nil,
                timeout: Duration, responseLimit: Int, keptHeaders: [String]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.responseLimit = responseLimit
        self.keptHeaders = keptHeaders
    }
}

/// The answer: any status (redirects are not followed: that is the caller's decision).
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header values by lower-cased name (a repeated header keeps its last value); only
    /// `HTTPRequest.keptHeaders` when the request named some.
    public var headers: [String: String]
    /// The body.
    public var body: Data
    /// Whether the exchange went over a connection kept alive from an earlier one.
    public var reusedConnection: Bool

    public init(status: Int, headers: [String: String], body: Data, reusedConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.reusedConnection = reusedConnection
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why no answer came.
public enum HTTPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The exchange took longer than the request's timeout.
    case timeout
    /// The calling task was cancelled (or the client closed).
    case cancelled
    /// The answer body is larger than the request's limit.
    case tooLarge(limit: Int)
    /// No answer: refused, reset, unresolvable, malformed — libcurl's words.
    case network(String)

    public var description: String {
        switch self {
        case .timeout: "timed out"
        case .cancelled: "cancelled"
        case .tooLarge(let limit): "the answer is larger than \(limit) bytes"
        case .network(let reason): reason
        }
    }
}
