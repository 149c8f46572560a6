import YAMLCoding

/// `http:` — the operations listener (`/healthz`, `/metrics`, `/api/v1/`). Absent: none.
public struct HTTPConfig: Decodable, Sendable {
    /// `host:port` to listen on (`127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:8080`); port 0 lets
    /// the system choose (the log line says which).
    public var listen: Located<String>?
    /// The Bearer token `/api/v1/` asks for (from `${ENV}`); required when `listen` is not loopback.
    public var adminToken: Located<String>?
    /// The visitors' door to the embedded hub's bots: `/chat/<bot>` and its API.
    public var webChat: WebChatConfig?
    /// Who may sign in to the agents' console at `/console`, by agent id.
    public var agents: OrderedMap<AgentLogin>?

    /// A section with these keys (tests, tools); `config.yaml` is decoded.
    public init(listen: Located<String>? = nil, adminToken: Located<String>? = nil, webChat: WebChatConfig? = nil,
                agents: OrderedMap<AgentLogin>? = nil) {
        self.listen = listen
        self.adminToken = adminToken
        self.webChat = webChat
        self.agents = agents
    }

    enum CodingKeys: String, CodingKey {
        case listen
        case adminToken = "admin_token"
        case webChat = "web_chat"
        case agents
    }
}

/// A parsed `http.listen`.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// An IPv4 or IPv6 literal (`localhost` is read as 127.0.0.1).
    public var host: String
    /// 0–65535 (0: the system chooses).
    public var port: Int

    /// Parses `host:port` or `[v6]:port`; the error says what is expected.
    public static func parse(_ text: String) -> Result<ListenAddress, ValueSyntaxError> {
        let expected = "expected host:port like 127.0.0.1:8080 or [::1]:8080"
        var host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(ValueSyntaxError("listen address '\(text)': \(expected)"))
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
            guard isIPv6(host) else { return .failure(ValueSyntaxError("listen address '\(text)': '\(host)' is not an IPv6 address")) }
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                return .failure(ValueSyntaxError("listen address '\(text)': \(expected)"))
            }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            if host == "localhost" { host = "127.0.0.1" }
            guard isIPv4(host) else {
                return .failure(ValueSyntaxError("listen address '\(text)': '\(host)' is not an IPv4 address (names other than localhost are not resolved)"))
            }
        }
        guard let number = Int(port), (0...65_535).contains(number), port.allSatisfy(\.isASCII) else {
            return .failure(ValueSyntaxError("listen address '\(text)': port '\(port)' is not a number from 0 to 65535"))
        }
        return .success(ListenAddress(host: String(host), port: number))
    }

    /// Whether only this machine can connect (127.0.0.0/8 or ::1).
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && Int(part).map { $0 <= 255 } == true
        }
    }

    private static func isIPv6(_ text: Substring) -> Bool {
        !text.isEmpty && text.contains(":") && text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
}
