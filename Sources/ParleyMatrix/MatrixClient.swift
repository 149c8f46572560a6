import Foundation
import ParleyCore
import ParleyHTTP

/// A small Matrix Client-Server API client over `HTTPClient` (libcurl, connections kept
/// alive): every request with a timeout and an answer-size limit, errors mapped to
/// `ParleyError` codes, redirects followed only within the homeserver's origin.
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
    /// Copies of this client share its connections (and the thread that drives them).
    private let http: HTTPClient

    /// A client for `homeserver`; `accessToken` may be set later (after a login).
    public init(homeserver: URL, accessToken: String? = nil, requestTimeout: Duration = .seconds(30)) {
        self.homeserver = homeserver
        self.accessToken = accessToken
        self.requestTimeout = requestTimeout
        http = HTTPClient(maxConnectionsPerHost: 16)
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

    /// Percent-encodes one path component or query value (only RFC 3986 unreserved characters
    /// stay). By bytes: every request encodes its room and event ids, and Foundation's
    /// `addingPercentEncoding` cost more than the rest of building the request.
    public static func encode(_ component: String) -> String {
        guard !component.utf8.allSatisfy(isUnreserved) else { return component }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(component.utf8.count + 8)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in component.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

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
        var headers: [(name: String, value: String)] = []
        if let accessToken { headers.append(("Authorization", "Bearer \(accessToken)")) }
        if body != nil { headers.append(("Content-Type", contentType ?? "application/octet-stream")) }
        var request = HTTPRequest(method: method, url: url.absoluteString, headers: headers, body: body,
                                  timeout: timeout ?? requestTimeout, responseLimit: limit ?? responseLimit,
                                  keptHeaders: ["location", "retry-after"])
        for _ in 0...Self.maxRedirects {
            let answer = try await send(request, path: path)
            if (300..<400).contains(answer.status), let location = answer.header("location") {
                guard let next = SameOriginRedirects.follow(request, status: answer.status, location: location, homeserver: homeserver)
                else {
                    // Requests carry the bearer token (and a login the password): another origin gets neither.
                    throw ParleyError(.permissionDenied,
                                      "the homeserver redirected to another origin (\(location)): not followed, so the access token and password stay with \(homeserver.absoluteString)",
                                      context: ["path": path, "status": String(answer.status), "location": location])
                }
                request = next
                continue
            }
            guard (200..<300).contains(answer.status) else {
                throw Self.error(status: answer.status, body: answer.body.isEmpty ? .object([:]) : (try? JSONValue.parse(answer.body)),
                                 retryAfterHeader: answer.header("retry-after"), path: path)
            }
            return answer.body
        }
        throw ParleyError(.serverError, "the homeserver redirected more than \(Self.maxRedirects) times", context: ["path": path])
    }

    /// Redirects followed in a row before giving up.
    static let maxRedirects = 5

    /// One exchange; a failure without an answer mapped to `ParleyError` (see `transportError`).
    private func send(_ request: HTTPRequest, path: String) async throws -> HTTPResponse {
        do {
            return try await http.send(request)
        } catch {
            throw Self.transportError(error, method: request.method, path: path, limit: request.responseLimit)
        }
    }
}
