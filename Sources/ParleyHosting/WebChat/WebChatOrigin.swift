import ParleyHTTPServer

/// Where a request to the chat API comes from, by its `Origin`: the listener's own pages, an
/// allowed other site (`web_chat.origins`), a client that is not a browser (no `Origin`), or a
/// site that is refused.
enum WebChatOrigin: Equatable {
    case sameSite
    case allowed(String)
    case noBrowser
    case refused(String)

    init(_ request: HTTPServerRequest, allowed origins: Set<String>) {
        guard let origin = request.header("origin") else {
            self = .noBrowser
            return
        }
        // The listener's own origin, whether reached directly or through a TLS proxy.
        if let host = request.header("host"), origin == "http://\(host)" || origin == "https://\(host)" {
            self = .sameSite
        } else if origins.contains(origin) {
            self = .allowed(origin)
        } else {
            self = .refused(origin)
        }
    }

    /// The CORS headers an answer to an allowed other site carries.
    var corsHeaders: [(name: String, value: String)] {
        guard case .allowed(let origin) = self else { return [] }
        return [(name: "Access-Control-Allow-Origin", value: origin), (name: "Access-Control-Allow-Credentials", value: "true"),
                (name: "Vary", value: "Origin")]
    }

    /// The session cookie's attributes: a cookie an allowed other site's page sends must be
    /// `SameSite=None`, which browsers accept only with `Secure`.
    func cookieAttributes(path: String) -> String {
        if case .allowed = self { return "Path=\(path); HttpOnly; SameSite=None; Secure" }
        return "Path=\(path); HttpOnly; SameSite=Strict"
    }
}
