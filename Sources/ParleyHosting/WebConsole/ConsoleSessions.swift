import Foundation
import ParleyCore
import Synchronization

/// The console's signed-in sessions, in memory: a restart signs every agent out (they sign in
/// again with their token). A session is found by its secret (the `parley_console` cookie)
/// and carries the CSRF value its requests must repeat in `X-Parley-CSRF`.
final class ConsoleSessions: Sendable {
    struct Session: Sendable {
        let agent: ConsoleAgent
        let csrf: String
        var lastUsed: Date
    }

    /// A session unused this long ends: an agent's working day, with room.
    static let idleLimit: Duration = .seconds(12 * 3600)
    /// Sessions kept per agent at most: an agent signs in from a few browsers, not hundreds; a
    /// script signing in again and again replaces its least recently used session rather than
    /// filling memory.
    static let perAgent = 16

    private let sessions = Mutex<[String: Session]>([:])
    private let clock: any ParleyClock
    private let idleLimit: TimeInterval
    /// Told when a session ends, so its event streams end too without waiting for their timer.
    private let changes: HostChangeSignal

    init(clock: any ParleyClock, changes: HostChangeSignal, idleLimit: Duration = ConsoleSessions.idleLimit) {
        self.clock = clock
        self.changes = changes
        self.idleLimit = idleLimit.timeInterval
    }

    /// Signs `agent` in: the new session's secret and its CSRF value. Sessions that expired
    /// are dropped here, so the table holds live ones only (a dropped session's event streams
    /// end at their next reading).
    func open(for agent: ConsoleAgent) -> (secret: String, session: Session) {
        let secret = SessionSecret.make()
        let session = Session(agent: agent, csrf: SessionSecret.make(), lastUsed: clock.now())
        sessions.withLock { sessions in
            let now = clock.now()
            sessions = sessions.filter { isLive($0.value, at: now) }
            let own = sessions.filter { $0.value.agent.id == agent.id }
            if own.count >= Self.perAgent, let oldest = own.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                sessions[oldest.key] = nil
            }
            sessions[secret] = session
        }
        return (secret, session)
    }

    /// The live session of `secret`, marked used now; nil (and forgotten) once expired.
    func use(_ secret: String) -> Session? {
        let now = clock.now()
        return sessions.withLock { sessions in
            guard let session = sessions[secret] else { return nil }
            guard isLive(session, at: now) else {
                sessions[secret] = nil
                return nil
            }
            sessions[secret]?.lastUsed = now
            return sessions[secret]
        }
    }

    /// Whether `secret`'s session is still live, without marking it used: an open event
    /// stream is not work, so a console left open still ends after the idle limit.
    func isLive(_ secret: String) -> Bool {
        let now = clock.now()
        return sessions.withLock { $0[secret].map { isLive($0, at: now) } ?? false }
    }

    /// Signs the session out; its event streams end.
    func close(_ secret: String) {
        sessions.withLock { _ = $0.removeValue(forKey: secret) }
        changes.notify()
    }

    private func isLive(_ session: Session, at now: Date) -> Bool {
        now.timeIntervalSince(session.lastUsed) < idleLimit
    }
}
