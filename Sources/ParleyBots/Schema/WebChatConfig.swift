import YAMLCoding

/// `http.web_chat:` — which bots visitors of a website may talk to, from where, and how fast.
public struct WebChatConfig: Decodable, Sendable {
    /// The bots a visitor may open a session with (`/chat/<bot>`).
    public var bots: Located<[Located<String>]>
    /// Origins (`https://shop.example`) whose pages may call the chat API besides the
    /// listener's own: the CORS allow-list, and the only cross-site callers not refused.
    public var origins: [Located<String>]?
    /// How many requests one session and one address may make (`{session: 5/s, address: 60/s}`).
    public var rate: WebChatRates?
    /// A session unused this long ends (`30m` unless set).
    public var expire: Located<String>?

    /// A section with these keys (tests, tools); `config.yaml` is decoded.
    public init(bots: Located<[Located<String>]>, origins: [Located<String>]? = nil, rate: WebChatRates? = nil, expire: Located<String>? = nil) {
        self.bots = bots
        self.origins = origins
        self.rate = rate
        self.expire = expire
    }

    /// The defaults: a person types far slower than 5 messages a second; 60 a second leaves
    /// room for an office behind one address.
    public static let defaultSessionRate = Rate(count: 5, per: .seconds(1))
    public static let defaultAddressRate = Rate(count: 60, per: .seconds(1))
    public static let defaultExpiry: Duration = .seconds(30 * 60)
}

/// `http.web_chat.rate:` — requests allowed per session and per client address.
public struct WebChatRates: Decodable, Sendable {
    public var session: Located<String>?
    public var address: Located<String>?

    public init(session: Located<String>? = nil, address: Located<String>? = nil) {
        self.session = session
        self.address = address
    }
}

/// One entry of `http.agents:` — an agent's console sign-in.
public struct AgentLogin: Decodable, Sendable {
    /// The secret the agent signs in with (from `${ENV}`).
    public var token: Located<String>
    /// The hand-off queues whose tickets the agent sees and acts on.
    public var queues: Located<[Located<String>]>

    public init(token: Located<String>, queues: Located<[Located<String>]>) {
        self.token = token
        self.queues = queues
    }
}
