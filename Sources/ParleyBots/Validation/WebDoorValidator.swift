import YAMLCoding

/// Checks `http.web_chat` and `http.agents` against what they name: the bots that exist,
/// their hand-off queues and the transport (`config.yaml`'s other keys are
/// `HostConfigValidator`'s).
public enum WebDoorValidator {
    /// What the checks need to know of one bot.
    public struct BotFacts: Sendable {
        public var id: String
        /// The queues it hands off to (nil when the bot does not compile: its own errors say why).
        public var queues: Set<String>?

        public init(id: String, queues: Set<String>?) {
            self.id = id
            self.queues = queues
        }
    }

    /// Every problem of `http` in `source`, given the loaded bots and the transport kind.
    public static func validate(_ http: HTTPConfig, source: SourceFile, bots: [BotFacts], transportKind: String) -> [YAMLError] {
        var errors: [YAMLError] = []
        func fail(_ mark: Mark, _ message: String) { errors.append(source.error(at: mark, message)) }
        if let chat = http.webChat {
            if transportKind != TransportConfig.defaultKind {
                fail(chat.bots.mark, "'web_chat' needs the embedded hub (transport kind local); on \(transportKind) visitors reach the bots through its own clients")
            }
            let known = Set(bots.map(\.id))
            var seen: Set<String> = []
            for bot in chat.bots.value {
                if !known.contains(bot.value) {
                    fail(bot.mark, "unknown bot '\(bot.value)' in web_chat.bots: expected " + BotValidator.list(bots.map(\.id).sorted()))
                } else if !seen.insert(bot.value).inserted {
                    fail(bot.mark, "bot '\(bot.value)' is listed twice in web_chat.bots")
                }
            }
        }
        guard let agents = http.agents else { return errors }
        let complete = bots.allSatisfy { $0.queues != nil }
        let queues = bots.reduce(into: Set<String>()) { $0.formUnion($1.queues ?? []) }
        for agent in agents.entries {
            for queue in agent.value.queues.value where complete && !queues.contains(queue.value) {
                let expected = queues.isEmpty ? "no bot hands off to any queue" : "expected " + BotValidator.list(queues.sorted())
                fail(queue.mark, "agent '\(agent.name)': unknown queue '\(queue.value)': \(expected)")
            }
        }
        return errors
    }

    /// The checks that need nothing but the section: keys that need `listen`, rates,
    /// durations, origins, tokens.
    static func validateShape(_ http: HTTPConfig, source: SourceFile) -> [YAMLError] {
        var errors: [YAMLError] = []
        func fail(_ mark: Mark, _ message: String) { errors.append(source.error(at: mark, message)) }
        if let chat = http.webChat {
            if http.listen == nil { fail(chat.bots.mark, "'web_chat' without 'listen': add listen: 127.0.0.1:8080") }
            if chat.bots.value.isEmpty { fail(chat.bots.mark, "empty web_chat.bots: name the bots visitors may talk to") }
            for origin in chat.origins ?? [] {
                if let problem = originProblem(origin.value) { fail(origin.mark, "web_chat origin '\(origin.value)': \(problem)") }
            }
            for rate in [chat.rate?.session, chat.rate?.address].compactMap({ $0 }) {
                if let error = ValueCheck.rate(rate, in: source) { errors.append(error) }
            }
            if let expire = chat.expire, let error = ValueCheck.duration(expire, in: source) { errors.append(error) }
        }
        guard let agents = http.agents else { return errors }
        if http.listen == nil, let first = agents.entries.first { fail(first.keyMark, "'agents' without 'listen': add listen: 127.0.0.1:8080") }
        var tokens: [String: String] = [:]
        for agent in agents.entries {
            let token = agent.value.token
            if token.value.count < 16 {
                fail(token.mark, "agent '\(agent.name)': the token is \(token.value.isEmpty ? "empty" : "shorter than 16 characters"): set a long random one (from the environment: \"${NINA_TOKEN}\")")
            } else if let other = tokens[token.value] {
                fail(token.mark, "agent '\(agent.name)' has the same token as '\(other)': each agent needs their own")
            } else {
                tokens[token.value] = agent.name
            }
            if agent.value.queues.value.isEmpty { fail(agent.value.queues.mark, "agent '\(agent.name)': empty queues: name the queues they work") }
        }
        return errors
    }

    /// Why `text` is not an origin (`scheme://host[:port]`, nothing after), or nil.
    static func originProblem(_ text: String) -> String? {
        guard let schemeEnd = text.range(of: "://") else { return "expected scheme://host[:port] like https://shop.example" }
        let scheme = text[..<schemeEnd.lowerBound]
        guard scheme == "https" || scheme == "http" else { return "the scheme must be https or http" }
        let rest = text[schemeEnd.upperBound...]
        guard !rest.isEmpty else { return "no host after \(scheme)://" }
        guard !rest.contains(where: { "/?#@ ".contains($0) }) else { return "an origin has no path, query, user or spaces: expected \(scheme)://host[:port]" }
        return nil
    }
}
