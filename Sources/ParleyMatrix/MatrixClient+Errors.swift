import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore
import ParleyHTTP

extension MatrixClient {
    /// Maps a non-2xx answer to a `ParleyError`: 429 → `rateLimited` (wait from the `Retry-After`
    /// header first, `retry_after_ms` second), 401 → `unauthorized`, 403 → `permissionDenied`,
    /// 404 / `M_NOT_FOUND` → `notFound`, 413 / `M_TOO_LARGE` → `messageTooLarge`, 5xx → `serverError`,
    /// other 4xx → `invalidArgument`. The errcode is kept as `serverCode` (see `matrixErrcode`);
    /// the context carries `errcode`, `status` and `path` for people.
    public static func error(status: Int, body: JSONValue?, retryAfterHeader: String?, path: String) -> ParleyError {
        let errcode = body?["errcode"]?.stringValue ?? ""
        let text = body?["error"]?.stringValue ?? HTTPURLResponse.localizedString(forStatusCode: status)
        var context = ["status": String(status), "path": path]
        if !errcode.isEmpty { context["errcode"] = errcode }
        // User-interactive auth: the session to answer with (see `uploadCrossSigningKeys`).
        if status == 401, let session = body?["session"]?.stringValue { context["uia_session"] = session }
        let message = errcode.isEmpty ? text : "\(errcode): \(text)"
        let code: ParleyError.Code
        var retryAfter: Duration?
        switch (status, errcode) {
        case (429, _), (_, "M_LIMIT_EXCEEDED"):
            code = .rateLimited
            retryAfter = Self.retryAfter(header: retryAfterHeader, body: body)
        case (401, _), (_, "M_UNKNOWN_TOKEN"), (_, "M_MISSING_TOKEN"): code = .unauthorized
        case (404, _), (_, "M_NOT_FOUND"): code = .notFound
        case (403, _), (_, "M_FORBIDDEN"): code = .permissionDenied
        case (413, _), (_, "M_TOO_LARGE"): code = .messageTooLarge
        case (500..., _): code = .serverError
        default: code = .invalidArgument
        }
        return ParleyError(code, message, retryAfter: retryAfter, context: context, serverCode: errcode.isEmpty ? nil : errcode)
    }

    /// The wait a 429 asks for: the `Retry-After` header (seconds) wins over `retry_after_ms`.
    static func retryAfter(header: String?, body: JSONValue?) -> Duration? {
        if let header, let seconds = Double(header.trimmingCharacters(in: .whitespaces)), seconds >= 0 {
            return .milliseconds(Int64(seconds * 1000))
        }
        if let millis = body?["retry_after_ms"]?.intValue, millis >= 0 { return .milliseconds(millis) }
        return nil
    }

    /// Maps a failure without an answer: a timeout → `timeout`, a cancelled task →
    /// `cancelled`, an answer over `limit` → `messageTooLarge` (naming the request and the
    /// limit), anything else (refused, reset, DNS) → `networkUnavailable`.
    static func transportError(_ error: HTTPFailure, method: String, path: String, limit: Int) -> ParleyError {
        let context = ["path": path]
        switch error {
        case .timeout: return ParleyError(.timeout, "the homeserver did not answer in time", context: context)
        case .cancelled: return ParleyError(.cancelled, "request cancelled", context: context)
        case .tooLarge:
            return ParleyError(.messageTooLarge,
                               "the homeserver's answer to \(method) \(path) is larger than \(limit) bytes: refused without reading the rest",
                               context: ["path": path, "limit": String(limit)])
        case .network(let reason):
            return ParleyError(.networkUnavailable, "cannot reach the homeserver: \(reason)", context: context)
        }
    }
}

/// A Matrix `errcode` (`M_FORBIDDEN`, …), as the homeserver spells it: what transport code
/// decides on, typed, instead of reading an error's context.
public struct MatrixErrcode: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The same reaction (sender, key, event) already exists.
    public static let duplicateAnnotation = MatrixErrcode(rawValue: "M_DUPLICATE_ANNOTATION")
    /// The room alias asked for is taken.
    public static let roomInUse = MatrixErrcode(rawValue: "M_ROOM_IN_USE")
}

extension ParleyError {
    /// The homeserver's errcode of a Matrix answer (`MatrixClient.error`); nil for any other error.
    public var matrixErrcode: MatrixErrcode? { serverCode.map(MatrixErrcode.init(rawValue:)) }
}
