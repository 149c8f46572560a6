import Foundation
import ParleyCore
import ParleyHub
import Synchronization

/// The visitors' sessions with the hub's bots (`http.web_chat`): opened, found by their
/// cookie's secret, rate-limited, kept alive and ended when unused.
final class WebChatDoor: Sendable {
    let settings: WebChatSettings
    let hub: Hub
    let clock: any ParleyClock
    /// Decodes every card of every bot, as last loaded.
    let registry: @Sendable () -> ContentRegistry
    private let sessions = Mutex<[String: VisitorSession]>([:])
    private let buckets = Mutex(TokenBuckets<String>())
    private let sweeper = Mutex<Task<Void, Never>?>(nil)

    init(settings: WebChatSettings, hub: Hub, clock: any ParleyClock, registry: @escaping @Sendable () -> ContentRegistry) {
        self.settings = settings
        self.hub = hub
        self.clock = clock
        self.registry = registry
    }

    /// Starts the sweep: keep-alives for open streams, and the end of idle sessions.
    func start() {
        let task = Task { [weak self, clock = clock, every = settings.sweepEvery] in
            while !Task.isCancelled {
                do { try await clock.sleep(for: every) } catch { return }
                self?.sweep()
            }
        }
        sweeper.withLock { $0 = task }
    }

    /// Ends every session (the listener is stopping).
    func stop() {
        sweeper.withLock { $0 }?.cancel()
        let all = sessions.withLock { sessions in
            defer { sessions = [:] }
            return Array(sessions.values)
        }
        for session in all { session.close() }
    }

    /// Keep-alives, then the end of the sessions unused for `expire` at `now`.
    func sweep(at now: Date? = nil) {
        let cutoff = (now ?? clock.now()).addingTimeInterval(-settings.expire.timeInterval)
        let (open, idle) = sessions.withLock { sessions in
            let idle = sessions.values.filter { $0.isIdle(since: cutoff) }
            for session in idle { sessions[session.secret] = nil }
            return (Array(sessions.values), idle)
        }
        for session in open { session.keepAlive() }
        for session in idle { session.close() }
    }

    /// Ends every open stream, keeping the sessions: what a proxy or network drop does to the
    /// visitors, who reconnect with their `Last-Event-ID` (tests use it to make one happen).
    func dropStreams() {
        for session in sessions.withLock({ Array($0.values) }) { session.dropStreams() }
    }

    var sessionCount: Int { sessions.withLock { $0.count } }

    /// The live session of `secret` with `bot`, marked used.
    func session(secret: String?, bot: String) -> VisitorSession? {
        guard let secret, let session = sessions.withLock({ $0[secret] }), session.bot == bot else { return nil }
        session.touch(at: clock.now())
        return session
    }

    /// Why a new session cannot be opened now.
    enum OpenError: Error {
        case full
        case hub(ParleyError)
    }

    /// Opens a session for a new visitor named `name` with `bot`: a hub user `web-…` and its
    /// connection.
    func open(bot: String, name: String) throws(OpenError) -> VisitorSession {
        guard sessionCount < settings.maxSessions else { throw .full }
        var generator = SystemRandomNumberGenerator()
        var visitor: String
        repeat {
            visitor = "web-" + (0..<6).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        } while hub.user(visitor) != nil
        let secret = Self.secret(using: &generator)
        let transport: HubTransport, receiver: HubTransport
        do {
            try hub.addUser(Profile(id: visitor, name: name))
            transport = try hub.connect(user: visitor)
            receiver = try hub.connect(user: visitor)
        } catch {
            throw .hub((error as? ParleyError) ?? ParleyError(.storage, "\(error)"))
        }
        let session = VisitorSession(secret: secret, visitor: visitor, name: name, bot: bot,
                                     botName: hub.user(bot)?.displayName ?? bot, transport: transport, receiver: receiver,
                                     registry: registry(), logCapacity: settings.eventLogCapacity, now: clock.now())
        sessions.withLock { $0[secret] = session }
        session.start(retryEvery: .seconds(1), clock: clock)
        return session
    }

    /// Renames the visitor (their hub profile too, which the bot reads as `{{user.name}}`).
    func rename(_ session: VisitorSession, to name: String) {
        session.rename(name)
        try? hub.addUser(Profile(id: session.visitor, name: name))
    }

    /// Takes one request's token from `key`'s bucket; nil when allowed, else how long to wait.
    func limit(_ key: String, rate: TokenBucket.Rate) -> Duration? {
        let now = clock.now()
        return buckets.withLock { buckets in
            buckets.withBucket(key, rate: rate, at: now) { bucket -> Duration? in
                if let next = bucket.nextAvailable(at: now) { return .seconds(next.timeIntervalSince(now)) }
                bucket.take(at: now)
                return nil
            }
        }
    }

    /// 32 random bytes, base64url: what the cookie carries.
    private static func secret(using generator: inout SystemRandomNumberGenerator) -> String {
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
