import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore

/// A small Matrix Client-Server API client over `URLSession`: one JSON request at a time,
/// every request with a timeout, errors mapped to `ParleyError` codes.
///
/// It knows the wire, not the semantics: `MatrixTransport` builds on it, and tests use it as an
/// independent second user.
public struct MatrixClient: Sendable {
    /// The homeserver base URL, e.g. `http://127.0.0.1:8448`.
    public let homeserver: URL
    /// The access token sent as a bearer token, if logged in.
    public var accessToken: String?
    /// The timeout of requests that don't name their own.
    public var requestTimeout: Duration
    /// The largest answer body read, but for `/sync`: 8 MiB. The largest answers Parley asks
    /// for are pages of up to 100 events (`/messages`, relations), and an event is at most
    /// 64 KiB, so 6.4 MiB; a larger answer is refused (`messageTooLarge`), not read.
    public var responseLimit = 8 << 20
    /// The largest `/sync` answer read: 32 MiB. Its timeline is capped per room by the filter
    /// (50 events), so it holds a burst of typical events in hundreds of rooms, or of
    /// maximum-size ones in ten. A sync refused for its size is retried like any failed one
    /// (with backoff and a log line that names the limit).
    public var syncResponseLimit = 32 << 20
    private let session: URLSession
    private let bodies: BoundedBodies

    /// A client for `homeserver`; `accessToken` may be set later (after a login).
    public init(homeserver: URL, accessToken: String? = nil, requestTimeout: Duration = .seconds(30)) {
        self.homeserver = homeserver
        self.accessToken = accessToken
        self.requestTimeout = requestTimeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = requestTimeout.timeInterval
        configuration.httpMaximumConnectionsPerHost = 16
        // Without the delegate a redirect to another host would receive the bearer token, and
        // an answer would be read whole however large.
        let bodies = BoundedBodies()
        self.bodies = bodies
        self.session = URLSession(configuration: configuration, delegate: bodies, delegateQueue: nil)
    }

    /// A path under `/_matrix/client/v3/` with every component percent-encoded
    /// (room ids, event ids and aliases contain `!`, `$`, `#` and `:`).
    public static func clientPath(_ components: String...) -> String {
        clientPath(version: "v3", components)
    }

    /// A path under `/_matrix/client/{version}/` (some endpoints, like relations, exist only as v1).
    public static func clientPath(version: String, _ components: [String]) -> String {
        "/_matrix/client/\(version)/" + components.map(encode).joined(separator: "/")
    }

    /// Percent-encodes one path component or query value (only RFC 3986 unreserved characters stay).
    public static func encode(_ component: String) -> String {
        component.addingPercentEncoding(withAllowedCharacters: unreserved) ?? component
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Sends one request and returns the decoded JSON body of a 2xx answer.
    ///
    /// - Parameters:
    ///   - path: an already-encoded absolute path (see `clientPath`).
    ///   - query: query parameters (encoded here).
    ///   - timeout: overrides `requestTimeout` (the sync long-poll needs more).
    ///   - limit: overrides `responseLimit` (the sync answer may be larger).
    /// - Throws: `ParleyError` — see `MatrixClient.error(status:body:retryAfterHeader:path:)`;
    ///   `messageTooLarge` for an answer body over the limit.
    @discardableResult
    public func request(
        _ method: String, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil,
        timeout: Duration? = nil, limit: Int? = nil
    ) async throws -> JSONValue {
        let data = try await rawRequest(method, path, query: query, body: body?.jsonData(),
                                        contentType: body == nil ? nil : "application/json", timeout: timeout, limit: limit)
        if data.isEmpty { return .object([:]) }
        guard let json = try? JSONValue.parse(data) else {
            throw ParleyError(.serverError, "the homeserver answered with invalid JSON", context: ["path": path])
        }
        return json
    }

    /// Like `request`, with any body and answer bytes (media upload and download); `path` may
    /// be any path on the homeserver.
    public func rawRequest(
        _ method: String, _ path: String, query: [(String, String)] = [], body: Data? = nil, contentType: String? = nil,
        timeout: Duration? = nil, limit: Int? = nil
    ) async throws -> Data {
        var text = homeserver.absoluteString
        if text.hasSuffix("/") { text.removeLast() }
        text += path
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else {
            throw ParleyError(.invalidArgument, "not a valid URL: \(text)", context: ["path": path])
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = (timeout ?? requestTimeout).timeInterval
        if let accessToken { request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue(contentType ?? "application/octet-stream", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        let (data, http) = try await perform(request, path: path, limit: limit ?? responseLimit)
        if (300..<400).contains(http.statusCode) {
            // Only a redirect SameOriginRedirects refused ends here (others were followed).
            let target = http.value(forHTTPHeaderField: "Location") ?? "?"
            throw ParleyError(.permissionDenied,
                              "the homeserver redirected to another origin (\(target)): not followed, so the access token and password stay with \(homeserver.absoluteString)",
                              context: ["path": path, "status": String(http.statusCode), "location": target])
        }
        guard (200..<300).contains(http.statusCode) else {
            throw Self.error(status: http.statusCode, body: data.isEmpty ? .object([:]) : (try? JSONValue.parse(data)),
                             retryAfterHeader: http.value(forHTTPHeaderField: "Retry-After"), path: path)
        }
        return data
    }

    /// Runs the request as a data task that is cancelled with the calling Swift task, so a
    /// `disconnect()` does not wait for a 30-second long-poll to end; its body is collected by
    /// `bodies`, at most `limit` bytes.
    private func perform(_ request: URLRequest, path: String, limit: Int) async throws -> (Data, HTTPURLResponse) {
        let box = DataTaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) in
                let task = session.dataTask(with: request)
                bodies.expect(task, limit: limit, method: request.httpMethod ?? "GET", path: path, continuation: continuation)
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// Hands a data task to the cancellation handler, which may run before or after it exists.
private final class DataTaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func start(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        let cancelled = self.cancelled
        lock.unlock()
        if cancelled { task.cancel() } else { task.resume() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}
