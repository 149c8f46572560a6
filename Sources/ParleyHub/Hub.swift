import Foundation
import ParleyCore
import Synchronization

/// The embedded IM server: users, person and group channels, per-channel sequence numbers,
/// idempotent sends, reactions, replies, visibility lists, catch-up after reconnect,
/// server-side rate limits and fault injection for tests.
///
/// One lock guards the whole state (no actor hop per message); each send is one short
/// critical section. In memory (`":memory:"`) nothing is written anywhere; with a file path,
/// messages go to SQLite in group commits and a send is acknowledged (and delivered) only
/// after its COMMIT.
///
/// Delivery: the hub keeps a cursor per user and channel (the last seq given to the user).
/// `HubTransport.connect()` yields `.connection(.connected)`, then every missed message in
/// seq order per channel, then live events; catch-up and registration share the lock with
/// delivery, so nothing falls between them and nothing comes twice. Seqs are strictly
/// increasing per channel but not gap-free for a given user (noPersist messages, visibility
/// lists). Reaction and membership events are live only; history carries the reactions.
///
/// Streams buffer at most `HubConfiguration.eventBufferLimit` events (plus the catch-up);
/// a consumer that falls further behind has its stream finished and catches up on reconnect.
public final class Hub: Sendable {
    /// The clock that stamps messages, refills rate limits and runs injected delays.
    public let clock: any ParleyClock
    /// The settings the hub was opened with.
    public let configuration: HubConfiguration
    let state: Mutex<HubState>
    /// The SQLite store; nil in memory.
    let database: HubDatabase?
    /// True while an injected delay is set (read without the lock on every send).
    let delaying = Atomic<Bool>(false)
    /// Where committed sends are delivered and answered (see `startFlushing`), one batch at a time.
    let deliveries = DispatchQueue(label: "parley-hub-deliveries")

    /// Opens a hub. `path` is a SQLite file (created and migrated as needed; its users,
    /// channels and messages are loaded) or `":memory:"` for a hub that writes nothing.
    public init(path: String = ":memory:", clock: any ParleyClock = SystemClock(), configuration: HubConfiguration = HubConfiguration()) throws {
        self.clock = clock
        self.configuration = configuration
        var initial = HubState(persistent: path != ":memory:", configuration: configuration)
        if path == ":memory:" {
            database = nil
        } else {
            let database = try HubDatabase(path: path)
            try database.load(into: &initial)
            self.database = database
        }
        state = Mutex(initial)
    }

    // MARK: - Users and groups

    /// Adds a user, or replaces the profile of a known one.
    public func addUser(_ profile: Profile) throws {
        guard !profile.id.isEmpty else { throw ParleyError(.invalidArgument, "a user id must not be empty") }
        try state.withLock { state in
            try database?.saveUser(profile)
            state.users[profile.id] = profile
        }
    }

    /// The profile of `id`, if the user exists.
    public func user(_ id: String) -> Profile? {
        state.withLock { $0.users[id] }
    }

    /// Creates a group channel. Unknown users → `notFound`; an existing id → `conflict`.
    public func createGroup(_ id: String, name: String? = nil, members: [String], by: String? = nil) throws {
        try state.withLock { state in
            let index = try state.createGroup(id: id, name: name, members: members, by: by)
            do {
                try database?.saveChannel(index: index, state.channels[index])
            } catch {
                throw ParleyError(.storage, "cannot store group: \(error)", context: ["channel": Channel.group(id).target])
            }
        }
    }

    /// Adds `user` to a group; members get a `joined` event. Adding a member again is a no-op.
    public func addMember(_ user: String, to group: String, by: String? = nil) throws {
        try state.withLock { state in
            guard try state.addMember(user, to: group, by: by) else { return }
            let index = try state.groupIndex(group)
            try database?.saveMember(user, cursor: state.channels[index].members[user] ?? 0, channel: index)
        }
    }

    /// Removes `user` from a group; members and the user get a `left` (or `kicked`) event.
    public func removeMember(_ user: String, from group: String, by: String? = nil) throws {
        try state.withLock { state in
            guard try state.removeMember(user, from: group, by: by) else { return }
            try database?.deleteMember(user, channel: try state.groupIndex(group))
        }
    }

    /// Sets (or, with nil, clears) the rate limit of one user, overriding the configuration.
    public func setRateLimit(_ limit: HubRateLimit?, for user: String) {
        state.withLock { $0.rateLimits[user] = limit }
    }

    // MARK: - Connections

    /// A transport acting for `user` (who must exist). `payloadLimit` defaults to the
    /// configuration's. Several transports per user behave like several devices; delivery
    /// cursors are per user, so catch-up assumes one stream per user at a time.
    public func connect(user: String, payloadLimit: Int? = nil) throws -> HubTransport {
        let id = try state.withLock { state throws(ParleyError) -> Int in
            try state.requireUsers([user])
            state.nextToken += 1
            state.transports[state.nextToken] = user
            return state.nextToken
        }
        return HubTransport(hub: self, id: id, userID: user, payloadLimit: payloadLimit ?? configuration.payloadLimit)
    }

    /// Ends every event stream, refuses further sends (`notConnected`) and writes the
    /// delivery cursors, so a hub reopened on the same file resumes catch-up where this one
    /// stopped. Sends already waiting for their commit still complete.
    public func close() throws {
        try state.withLock { state in
            state.closed = true
            for (user, streams) in state.subscribers {
                for stream in streams { state.unsubscribe(transport: stream.transport, user: user) }
            }
            try database?.saveCursors(state)
        }
    }

    /// Turns a SQLite or unexpected error into `ParleyError(.storage)`.
    static func storageError(_ error: any Error) -> ParleyError {
        (error as? ParleyError) ?? ParleyError(.storage, "storage failed: \(error)")
    }
}
