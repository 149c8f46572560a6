import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore

extension MatrixClient {
    /// Maps a non-2xx answer to a `ParleyError`: 429 → `rateLimited` (wait from the `Retry-After`
    /// header first, `retry_after_ms` second), 401 → `unauthorized`, 403 → `permissionDenied`,
    /// 404 / `M_NOT_FOUND` → `notFound`, 413 / `M_TOO_LARGE` → `messageTooLarge`, 5xx → `serverError`,
    /// other 4xx → `invalidArgument`. The context carries `errcode`, `status` and `path`.
    public static func error(status: Int, body: JSONValue?, retryAfterHeader: String?, path: String) -> ParleyError {
        let errcode = body?["errcode"]?.stringValue ?? ""
        let text = body?["error"]?.stringValue ?? HTTPURLResponse.localizedString(forStatusCode: status)
        var context = ["status": String(status), "path": path]
        if !errcode.isEmpty { context["errcode"] = errcode }
        let message = errcode.isEmpty ? text : "\(errcode): \(text)"
        switch (status, errcode) {
        case (429, _), (_, "M_LIMIT_EXCEEDED"):
            return ParleyError(.rateLimited, message,
                               retryAfter: retryAfter(header: retryAfterHeader, body: body), context: context)
        case (401, _), (_, "M_UNKNOWN_TOKEN"), (_, "M_MISSING_TOKEN"):
            return ParleyError(.unauthorized, message, context: context)
        case (404, _), (_, "M_NOT_FOUND"):
            return ParleyError(.notFound, message, context: context)
        case (403, _), (_, "M_FORBIDDEN"):
            return ParleyError(.permissionDenied, message, context: context)
        case (413, _), (_, "M_TOO_LARGE"):
            return ParleyError(.messageTooLarge, message, context: context)
        case (500..., _):
            return ParleyError(.serverError, message, context: context)
        default:
            return ParleyError(.invalidArgument, message, context: context)
        }
    }

    /// The wait a 429 asks for: the `Retry-After` header (seconds) wins over `retry_after_ms`.
    static func retryAfter(header: String?, body: JSONValue?) -> Duration? {
        if let header, let seconds = Double(header.trimmingCharacters(in: .whitespaces)), seconds >= 0 {
            return .milliseconds(Int64(seconds * 1000))
        }
        if let millis = body?["retry_after_ms"]?.intValue, millis >= 0 { return .milliseconds(millis) }
        return nil
    }

    /// Maps a `URLSession` failure: a timeout → `timeout`, a cancelled task → `cancelled`,
    /// anything else (refused, reset, DNS) → `networkUnavailable`.
    static func transportError(_ error: any Error, path: String) -> ParleyError {
        if error is CancellationError {
            return ParleyError(.cancelled, "request cancelled", context: ["path": path])
        }
        let context = ["path": path]
        if let urlError = error as? URLError {
            switch urlError.code {
            case .timedOut: return ParleyError(.timeout, "the homeserver did not answer in time", context: context)
            case .cancelled: return ParleyError(.cancelled, "request cancelled", context: context)
            default: break
            }
        }
        return ParleyError(.networkUnavailable, "cannot reach the homeserver: \(error.localizedDescription)", context: context)
    }
}
