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
    /// The sessions on disk, restored on their next request after a restart.
    let store: WebSessionStore
    private let sessions = Mutex<[String: VisitorSession]>([:])
    private let buckets = Mutex(TokenBuckets<String>())
    private let sweeper = Mutex<Task<Void, Never>?>(nil)

    init(settings: WebChatSettings, hub: Hub, clock: any ParleyClock, store: WebSessionStore,
         registry: @escaping @Sendable () -> ContentRegistry) {
        self.store = store
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
        // The stored ones too, including those of an earlier run never asked for again.
        _ = try? store.deleteUnused(before: cutoff)
    }

    /// Ends every open stream, keeping the sessions: what a proxy or network drop does to the
    /// visitors, who reconnect with their `Last-Event-ID` (tests use it to make one happen).
    func dropStreams() {
        for session in sessions.withLock({ Array($0.values) }) { session.dropStreams() }
    }

    var sessionCount: Int { sessions.withLock { $0.count } }

    /// The live session of `secret` with `bot`, marked used: from memory, or restored from the
    /// store (a session opened before a restart and used within `expire`).
    func session(secret: String?, bot: String) -> VisitorSession? {
        guard let secret else { return nil }
        let now = clock.now()
        let session: VisitorSession
        if let live = sessions.withLock({ $0[secret] }) {
            session = live
        } else {
            guard let record = try? store.find(secret: secret), record.bot == bot,
                  record.lastUsed >= now.addingTimeInterval(-settings.expire.timeInterval), hub.user(record.visitor) != nil,
                  let restored = try? make(secret: secret, visitor: record.visitor, name: record.name, bot: bot, restored: true) else { return nil }
            session = restored
        }
        guard session.bot == bot else { return nil }
        if session.touch(at: now) { try? store.touch(secret: secret, at: now) }
        return session
    }

    /// Why a new session cannot be opened now.
    enum OpenError: Error {
        case full
        case hub(ParleyError)
    }

    /// Opens a session for a new visitor named `name` with `bot`: a hub user `web-…`, its
    /// connection, and the session stored.
    func open(bot: String, name: String) throws(OpenError) -> VisitorSession {
        try requireRoom()
        var visitor: String
        repeat {
            visitor = "web-" + SHA1.hex(randomBytes(6))
        } while hub.user(visitor) != nil
        let secret = SessionSecret.make()
        do {
            try hub.addUser(Profile(id: visitor, name: name))
            try store.save(secret: secret, .init(visitor: visitor, bot: bot, name: name, lastUsed: clock.now()))
            return try make(secret: secret, visitor: visitor, name: name, bot: bot, restored: false)
        } catch let error as OpenError {
            throw error
        } catch {
            throw .hub((error as? ParleyError) ?? ParleyError(.storage, "\(error)"))
        }
    }

    /// Refuses a session past `maxSessions`.
    private func requireRoom() throws(OpenError) {
        guard sessionCount < settings.maxSessions else { throw .full }
    }

    /// The session of a hub user, connected and its pump started; a session made at the same
    /// time for the same secret (two requests of a restored session at once) wins.
    private func make(secret: String, visitor: String, name: String, bot: String, restored: Bool) throws -> VisitorSession {
        try requireRoom()
        // A restored session's log starts after the conversation's last message: the hub's
        // cursor for its receiver may be older (a crash does not save it), and what it would
        // catch up again is the history a resuming stream is answered from.
        let restoredAfter = restored ? hub.lastSeq(in: .person(bot), seenBy: visitor) : nil
        let session = VisitorSession(secret: secret, visitor: visitor, name: name, bot: bot,
                                     botName: hub.user(bot)?.displayName ?? bot, transport: try hub.connect(user: visitor),
                                     receiver: try hub.connect(user: visitor), registry: registry(),
                                     logCapacity: settings.eventLogCapacity, restoredAfter: restoredAfter, now: clock.now())
        let kept = sessions.withLock { sessions in
            if let existing = sessions[secret] { return existing }
            sessions[secret] = session
            return session
        }
        if kept === session { session.start(retryEvery: .seconds(1), clock: clock) }
        return kept
    }

    /// Renames the visitor (their hub profile too, which the bot reads as `{{user.name}}`).
    func rename(_ session: VisitorSession, to name: String) {
        session.rename(name)
        try? hub.addUser(Profile(id: session.visitor, name: name))
        try? store.save(secret: session.secret, .init(visitor: session.visitor, bot: session.bot, name: name, lastUsed: clock.now()))
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
}
