import Foundation
import ParleyHTTP

/// Follows a redirect only within the homeserver's origin (scheme, host and port).
///
/// Requests carry `Authorization: Bearer …` (and a login carries the password): a redirect to
/// another origin would hand the account to whoever answers there. Refused, the 3xx answer
/// becomes an error that names the target.
enum SameOriginRedirects {
    /// The request a redirect (`status`, `location`) asks for, or nil when it leaves the
    /// homeserver's origin. 307 and 308 repeat the method and body; 301, 302 and 303 fetch the
    /// target with GET (as browsers do).
    static func follow(_ request: HTTPRequest, status: Int, location: String, homeserver: URL) -> HTTPRequest? {
        guard let base = URL(string: request.url), let target = URL(string: location, relativeTo: base)?.absoluteURL,
              let to = origin(target), to == origin(homeserver) else { return nil }
        var next = request
        next.url = target.absoluteString
        if status != 307 && status != 308 {
            next.method = "GET"
            next.body = nil
            next.headers.removeAll { $0.name == "Content-Type" }
        }
        return next
    }

    /// scheme://host:port with the scheme's default port filled in; nil without a host.
    static func origin(_ url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}
