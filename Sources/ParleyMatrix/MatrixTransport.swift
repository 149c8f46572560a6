import Foundation
import ParleyCore
import Synchronization

/// `Transport` for a Matrix homeserver over the Client-Server API.
///
/// - Sessions: a password account logs in at each start as the device kept in SQLite, so
///   transaction ids stay valid; its token lives in memory only (a token on disk is readable by
///   whoever copies the file). A configured access token is checked with whoami at start and
///   never written anywhere.
/// - Sync: `/sync` long-poll with an uploaded filter; `since` is persisted only after a batch was
///   handled; a fresh start delivers no old messages; `limited` timelines are backfilled through
///   `/messages` so bursts are never lost; reconnects with backoff.
/// - Channels: `.person("@alice:hs")` is the direct room (from `m.direct`, created on first send);
///   `.group("!room:hs")` or `.group("#alias:hs")`. Incoming events of a direct room arrive as
///   `.person(sender)`, others as `.group(roomID)`.
/// - Sequence numbers: Matrix has none, so the transport assigns them per channel in the order
///   it sees messages (its own sends at send time, others' at sync time), persisted in SQLite.
///   `history(of:after:limit:)` answers from that record.
/// - Encrypted rooms: with `encryptionMode` `off` a warning is logged once per room, nothing
///   from them is delivered and sends there fail with `permissionDenied`. Other modes serve
///   them through `configuration.encryption` (see `MatrixTransport+Encryption.swift`).
public actor MatrixTransport: Transport {
    /// The account's full Matrix user id.
    public nonisolated let userID: String
    /// Matrix caps an event at 65,536 bytes of canonical JSON.
    public nonisolated let payloadLimit = 65_536
    /// Rooms sent to at once (`MatrixConfiguration.concurrentRooms`).
    public nonisolated let concurrentSends: Int
    /// Room for what the server adds around the content (ids, hashes, signatures).
    static let eventOverhead = 2_048
    /// Handled event ids kept per room (for exactly-once delivery); older ones are forgotten.
    static let seenPerRoom = 1_000

    let config: MatrixConfiguration
    let store: MatrixStore
    let queues = SerialQueues()
    var client: MatrixClient
    var sessionTask: Task<Void, any Error>?
    var filterID: String?
    /// The account's rooms as this process knows them.
    var rooms = RoomDirectory()
    /// The pass of `adoptOrphanedDirectRooms` under way, which concurrent sends wait for.
    var adoptionPass: Task<Void, any Error>?
    /// A read of the rooms under way for `rereadsRoomsBeforeCreating`: the sends that miss a
    /// room meanwhile wait for it instead of each asking the server again.
    var roomsReread: Task<Void, any Error>?
    /// The read (or making) of the key of this account's direct room aliases, shared.
    var directAliasKeyRead: Task<String, any Error>?
    /// The server refused this account an alias: direct rooms are made without one.
    var directAliasesRefused = false
    /// Encrypted events whose room key has not arrived yet, oldest first.
    var heldEvents: [HeldEvent] = []
    /// This session's device (from login or whoami).
    var deviceID: String?
    /// The connection's events not yet taken by the consumer (nil while disconnected).
    var backlog: EventBacklog?
    var syncTask: Task<Void, Never>?
    /// Events handed to the consumer so far: a sync that added none was empty-handed.
    var emittedCount = 0
    /// `/sync` answers received so far (each one a request and a computation on the server).
    public internal(set) var syncCount = 0
    /// What the sync being handled writes, and the events waiting for that commit.
    var syncBatch = SyncBatch()
    /// The sync position, read from the store once, then kept here as it is saved.
    var syncPosition: SyncPosition = .unread
    var state = ConnectionState.disconnected
    /// When the last `/sync` answer was handled (read by `/healthz` without waiting on the actor).
    nonisolated let lastSync = Mutex<Date?>(nil)

    /// When the last `/sync` answer was handled and committed; nil before the first. A sync
    /// loop that stalls (the server gone, a hung request) shows as this growing old.
    public nonisolated var lastSuccessfulSync: Date? { lastSync.withLock { $0 } }
    /// How long a healthy sync loop can go without an answer: one long-poll and its margin.
    public nonisolated var syncInterval: Duration { config.syncTimeout + config.syncMargin }

    /// A transport for `configuration.userID`; opens (creating) its SQLite database.
    /// - Throws: `ParleyError(.storage)` when the database cannot be opened,
    ///   `invalidArgument` when the user id is not a full Matrix id.
    public init(configuration: MatrixConfiguration) throws {
        guard configuration.userID.hasPrefix("@"), configuration.userID.contains(":") else {
            throw ParleyError(.invalidArgument, "Matrix user id '\(configuration.userID)' must look like @name:server",
                              context: ["field": "userID"])
        }
        userID = configuration.userID
        config = configuration
        concurrentSends = max(1, configuration.concurrentRooms)
        store = try MatrixStore(path: configuration.databasePath, log: configuration.log,
                                now: { [clock = configuration.clock] in clock.now() })
        client = MatrixClient(homeserver: configuration.homeserver, requestTimeout: configuration.requestTimeout)
    }

    // MARK: - Session

    /// Logs in (or checks the token) once; concurrent callers share the attempt, a failed
    /// attempt is retried by the next caller.
    func ensureSession() async throws {
        if let sessionTask {
            do { return try await sessionTask.value } catch { self.sessionTask = nil; throw error }
        }
        let task = Task { try await self.establishSession() }
        sessionTask = task
        do { try await task.value } catch { sessionTask = nil; throw error }
    }

    private func establishSession() async throws {
        let saved = try await store.session(userID: userID)
        switch config.credentials {
        case .accessToken(let token):
            client.accessToken = token
            deviceID = try await checkWhoami()
        case .password(let password):
            client.accessToken = nil
            let result: MatrixClient.LoginResult
            do {
                result = try await client.login(user: userID, password: password, deviceID: config.loginDevice?() ?? saved.deviceID,
                                                deviceName: config.deviceName)
            } catch var error as ParleyError where error.code == .permissionDenied {
                error.code = .unauthorized
                error.message = "login of \(userID) refused: \(error.message)"
                throw error
            }
            guard result.userID == userID else {
                throw ParleyError(.unauthorized, "logged in as \(result.userID), configured as \(userID)", context: ["user": userID])
            }
            client.accessToken = result.accessToken
            try await store.saveDevice(userID: userID, deviceID: result.deviceID)
            deviceID = result.deviceID
        }
        try await startEncryption()
    }

    /// Checks the token and returns its device.
    private func checkWhoami() async throws -> String? {
        let who: (userID: String, deviceID: String?)
        do {
            who = try await client.whoami()
        } catch var error as ParleyError where error.code == .unauthorized {
            error.message = "access token of \(userID) rejected by \(config.homeserver.absoluteString): \(error.message)"
            throw error
        }
        guard who.userID == userID else {
            throw ParleyError(.unauthorized, "access token belongs to \(who.userID), configured as \(userID)", context: ["user": userID])
        }
        return who.deviceID
    }

    // MARK: - Connection

    /// Logs in, uploads the sync filter, runs one catch-up sync (its events are in the stream
    /// before this returns) and starts the long-poll loop.
    /// - Throws: `unauthorized` (bad token or password), `networkUnavailable` (server unreachable),
    ///   `conflict` when already connected.
    public func connect() async throws -> AsyncStream<TransportEvent> {
        guard backlog == nil else { throw ParleyError(.conflict, "already connected", context: ["user": userID]) }
        try await ensureSession()
        filterID = try await client.uploadFilter(userID: userID, filter: SyncFilter.make(userID: userID, timelineLimit: config.timelineLimit))
        try await loadRooms()
        let backlog = EventBacklog(limit: config.eventBufferLimit)
        self.backlog = backlog
        setState(.connecting)
        do {
            try await syncOnce(timeout: .zero)
        } catch {
            setState(.disconnected)
            endStream()
            throw error
        }
        setState(.connected)
        syncTask = Task { await self.syncLoop() }
        return backlog.stream()
    }

    /// Stops the long-poll (cancelling the request in flight) and finishes the stream.
    public func disconnect() async {
        let task = syncTask
        syncTask = nil
        task?.cancel()
        await task?.value
        setState(.disconnected)
        endStream()
    }

    /// Deletes from this account's database what is older than `cutoff` (messages and handled
    /// events; see `MatrixStore.prune(before:)`) and returns the number of rows deleted. What
    /// keeps delivery exactly-once within the window stays.
    /// - Throws: `ParleyError(.storage)`.
    public func prune(before cutoff: Date) async throws -> Int {
        try await store.prune(before: cutoff)
    }

    /// Events in the stream not yet taken (for tests of the bound).
    var bufferedEvents: Int { backlog?.count ?? 0 }

    /// True while the sync loop waits for the consumer to take events.
    var isHoldingSync: Bool { backlog?.isHoldingProducer ?? false }

    /// Finishes the stream after the events still buffered.
    func endStream() {
        backlog?.finish()
        backlog = nil
    }

    func setState(_ new: ConnectionState) {
        guard new != state else { return }
        state = new
        backlog?.push(.connection(new))
    }

    /// Hands `event` to the consumer once the sync being handled is committed.
    func emit(_ event: TransportEvent) {
        syncBatch.events.append(.event(event))
    }

    func push(_ event: TransportEvent) {
        backlog?.push(event)
        emittedCount &+= 1
    }

    /// Joined rooms and the `m.direct` map, so sends work before the first sync has run.
    func loadRooms() async throws {
        rooms.joined = Set(try await client.joinedRooms())
        rooms.joinedLoaded = true
        rooms.applyDirect(try await client.accountData(userID: userID, type: "m.direct") ?? [:])
    }

    /// Drops what is kept about a room this account left (see `RoomDirectory.forget`), its
    /// held events too.
    func forget(_ room: String) {
        rooms.forget(room)
        for held in heldEvents where held.room == room { syncBatch.writes.release(held.id) }
        heldEvents.removeAll { $0.room == room }
    }

    func warnEncrypted(_ room: String) {
        guard rooms.warned.insert(room).inserted else { return }
        config.log("room \(room) is end-to-end encrypted and transport.encryption.mode is off: Parley ignores its messages and refuses to send there")
    }
}
