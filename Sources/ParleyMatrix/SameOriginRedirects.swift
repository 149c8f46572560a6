import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Follows a redirect only within the homeserver's origin (scheme, host and port).
///
/// Requests carry `Authorization: Bearer …` (and a login carries the password); URLSession
/// copies them into a redirected request, so a redirect to another origin would hand the
/// account to whoever answers there. Refused, the 3xx answer itself is what the task returns,
/// and `MatrixClient` turns it into an error that names the target.
final class SameOriginRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        // The original request went to the homeserver; every hop must stay on its origin.
        let from = (task.originalRequest?.url ?? response.url).flatMap(Self.origin)
        let to = request.url.flatMap(Self.origin)
        completionHandler(from != nil && from == to ? request : nil)
    }

    /// scheme://host:port with the scheme's default port filled in; nil without a host.
    static func origin(_ url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}
