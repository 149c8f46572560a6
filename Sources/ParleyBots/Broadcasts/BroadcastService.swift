import Foundation
import ParleyCore
import Synchronization

/// The host's broadcast machinery: creates jobs (durably, before any send), runs them
/// through a bot's transport, resumes unfinished ones after a restart, pauses, resumes and
/// cancels them, lists them.
///
/// The engine's executor calls `start` for a `broadcast:` action, the scheduler for a due
/// schedule, `parley broadcast` for a one-off. One job runs at most once at a time per process.
public final class BroadcastService: Sendable {
    /// The jobs and recipients.
    public let store: BroadcastStore
    /// The host clock (pacing, backoff, report durations).
    public let clock: any ParleyClock
    public let configuration: BroadcastConfiguration
    let log: @Sendable (String) -> Void
    /// The jobs running in this process, each with what stops it.
    private let running = Mutex<[String: BroadcastRunControl]>([:])
    /// The bot of each running job (for `interrupt(bot:)`).
    private let runningBots = Mutex<[String: String]>([:])
    /// Jobs created by this process and not run yet: their first run sends nothing twice, so
    /// its sends need no look-up by the server; every other run may repeat what a run that
    /// died (or was stopped) sent without recording it.
    private let fresh = Mutex<Set<String>>([])
    /// Pauses armed by `pauseNextRun(origin:afterSends:)`, by job origin.
    private let armedPauses = Mutex<[String: Int]>([:])
    /// Jobs to an audience created by this process and not run yet, with the opt-out mark
    /// their members were read after (see `BroadcastStore.optOutMark`).
    private let cleanMarks = Mutex<[String: UInt64]>([:])

    /// A service over `store`; `log` receives one line per job report and per problem.
    public init(store: BroadcastStore, clock: any ParleyClock = SystemClock(),
                configuration: BroadcastConfiguration = BroadcastConfiguration(), log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.clock = clock
        self.configuration = configuration
        self.log = log
        // A SQLite store is this process's alone (under its lock): claims in it were made by
        // runs that died with an earlier process, and none is to be waited for.
        if !store.isShared {
            do { try store.releaseAllClaims() } catch { log("broadcast claims not released: \(error)") }
        }
    }

    /// Stores a job for `recipients` (all pending) unless job `id` exists already; returns
    /// the stored job and whether it was created now. Nothing is sent yet: call `run`.
    /// `payloads`, when given, is each recipient's own payload (in `recipients` order). A job
    /// to `audience` (its members, snapshot by the caller) skips those who opt out before their turn;
    /// `optOutMark`, read before the members, spares its first run the look-ups while nobody opts out.
    public func create(id: String = UUID().uuidString.lowercased(), bot: String, origin: String, message: BroadcastMessage,
                       recipients: BroadcastRecipients, payloads: [JSONValue]? = nil,
                       rate: Rate? = nil, audience: String? = nil,
                       optOutMark: UInt64? = nil) throws(BroadcastError) -> (job: BroadcastJob, created: Bool) {
        guard !id.isEmpty else { throw BroadcastError(.invalidMessage, "a broadcast id must not be empty") }
        if let existing = try store.job(id) { return (existing, false) }
        guard !recipients.channels.isEmpty else {
            throw BroadcastError(.noRecipients, "broadcast '\(id)' has no recipients: give 'to' targets or a 'to_file' with at least one")
        }
        let created = try store.create(id: id, bot: bot, origin: origin, message: message, ratePerSecond: rate?.perSecond,
                                       recipients: recipients.channels, payloads: payloads, audience: audience, now: clock.now())
        if created, audience != nil, let optOutMark { cleanMarks.withLock { $0[id] = optOutMark } }
        return try stored(id, created: created)
    }

    /// A new job (`origin` `retry:ID`) for exactly the recipients job `id` gave up on: the same
    /// bot, message (each recipient's own payload, if the job had them) and rate, under a new
    /// id with its own exactly-once guarantee; `run` sends it. Job `id` is left as it is. A job
    /// `newID` that exists is returned, not repeated (a retry started again resumes).
    public func retryFailed(_ id: String, newID: String = UUID().uuidString.lowercased()) throws(BroadcastError) -> (job: BroadcastJob, created: Bool) {
        guard !newID.isEmpty else { throw BroadcastError(.invalidMessage, "a broadcast id must not be empty") }
        if let existing = try store.job(newID) { return (existing, false) }
        guard let source = try store.job(id) else { throw BroadcastError(.unknownJob, "no broadcast with id '\(id)'") }
        let failures = try store.failures(job: id)
        guard !failures.isEmpty else { throw BroadcastError(.noRecipients, "broadcast '\(id)' has no failed recipients to retry") }
        let payloads = failures.compactMap { $0.payload }
        let created = try store.create(id: newID, bot: source.bot, origin: "retry:\(source.id)", message: source.message,
                                       ratePerSecond: source.ratePerSecond, recipients: failures.map { $0.channel },
                                       payloads: payloads.count == failures.count ? payloads : nil, now: clock.now())
        return try stored(newID, created: created)
    }

    /// Job `id` just stored (or found); one created now is marked fresh for its first run.
    private func stored(_ id: String, created: Bool) throws(BroadcastError) -> (job: BroadcastJob, created: Bool) {
        guard let job = try store.job(id) else { throw BroadcastError(.storage, "broadcast '\(id)' vanished after it was stored") }
        if created { _ = fresh.withLock { $0.insert(id) } }
        return (job, created)
    }

    /// The route of a bot's broadcasts through its running `client`. On SQLite through its
    /// outbox (the bot's answers go first). On a shared database straight through its
    /// transport: a queued send left in a killed process's durable outbox would be sent again
    /// by the bot's next holder while another process, its claim lapsed, sends the same
    /// recipient too — and if neither found the person's direct room yet, each made one, and
    /// the person got the message twice (seen in a cluster test). Claims alone decide who sends.
    public func route(through client: ChatClient) -> BroadcastRoute {
        store.isShared ? .transport(client.transport) : .client(client)
    }

    /// Sends job `id`'s pending recipients straight through `transport` (the sending bot's
    /// account); see `run(_:route:)`.
    public func run(_ id: String, transport: any Transport) async throws(BroadcastError) -> BroadcastReport {
        try await run(id, route: .transport(transport))
    }

    /// Sends job `id`'s pending recipients along `route` and returns the report (also
    /// logged). Cancelling stops it; what is not recorded stays pending, and a later `run`
    /// resends it with the same client message numbers, which the server recognises. A job
    /// already running in this process is `alreadyRunning` (unless it is stopping for a pause:
    /// this run then starts once that one has ended); a paused or cancelled one is `invalidState`.
    public func run(_ id: String, route: BroadcastRoute) async throws(BroadcastError) -> BroadcastReport {
        let control = BroadcastRunControl()
        // Bounded: each round waits for a stopping run to end; a third one in a row is refused.
        for round in 0..<3 {
            let stopping: BroadcastRunControl? = running.withLock { running in
                guard let other = running[id] else {
                    running[id] = control
                    return nil
                }
                return other.isStopping && round < 2 ? other : control
            }
            guard let stopping else { break }
            guard stopping !== control else { throw BroadcastError(.alreadyRunning, "broadcast '\(id)' is already running") }
            await stopping.waitUntilEnded()
        }
        defer {
            _ = running.withLock { $0.removeValue(forKey: id) }
            _ = runningBots.withLock { $0.removeValue(forKey: id) }
            control.end()
        }
        // Read once the control is registered: a pause stored before is seen here, one
        // stored after finds the control and stops it.
        guard let job = try store.job(id) else { throw BroadcastError(.unknownJob, "no broadcast with id '\(id)'") }
        runningBots.withLock { $0[id] = job.bot }
        // A finished job runs to a report of what it sent (nothing is pending).
        guard job.state != .paused && job.state != .cancelled else { throw Self.notRunning(job) }
        let firstRun = fresh.withLock { $0.remove(id) } != nil
        let pauseAfter = armedPauses.withLock { $0.removeValue(forKey: job.origin) }
        // Only a first run: after a stop or a restart, opt-outs may have come that this process did not see.
        let cleanAsOf = cleanMarks.withLock { $0.removeValue(forKey: id) }
        let runner = BroadcastRunner(job: job, route: route, store: store, clock: clock, configuration: configuration,
                                     mayRepeat: !firstRun, control: control, pauseAfter: pauseAfter,
                                     cleanAsOf: firstRun ? cleanAsOf : nil)
        let report = try await runner.run()
        log(report.description)
        return report
    }

    /// Resumes every unfinished job, one after another, each through its bot's transport
    /// (jobs of bots without one are left for later). Returns the reports.
    public func runUnfinished(transport: (String) -> (any Transport)?) async throws(BroadcastError) -> [BroadcastReport] {
        try await runUnfinished(route: { transport($0).map(BroadcastRoute.transport) })
    }

    /// Resumes every unfinished job, one after another, each along its bot's route (jobs of
    /// bots without one are left for later). Returns the reports.
    public func runUnfinished(route: (String) -> BroadcastRoute?) async throws(BroadcastError) -> [BroadcastReport] {
        var reports: [BroadcastReport] = []
        for job in try store.unfinishedJobs() {
            guard let route = route(job.bot) else {
                log("broadcast \(job.id): bot '\(job.bot)' is not running here; \(job.pending) recipients stay pending")
                continue
            }
            do {
                reports.append(try await run(job.id, route: route))
            } catch where error.code == .alreadyRunning || error.code == .invalidState {
                // Running already, or paused or cancelled since the list was read.
                continue
            }
        }
        return reports
    }

    /// Stops the runs of bot `bot`'s jobs in this process and waits for them to end, storing
    /// no new state: what they had not recorded stays pending for whoever runs the bot next
    /// (a process that lost the bot's lease on a shared database).
    public func interrupt(bot: String) async {
        let ids = runningBots.withLock { $0.filter { $0.value == bot }.map(\.key) }
        let controls = running.withLock { running in ids.compactMap { running[$0] } }
        for control in controls { control.requestStop() }
        for control in controls { await control.waitUntilEnded() }
    }

    /// The ids of the jobs running in this process.
    public var runningJobs: Set<String> { Set(running.withLock { $0.keys }) }

    /// Every job, newest first, with its progress.
    public func jobs() throws(BroadcastError) -> [BroadcastJob] { try store.jobs() }

    // MARK: - Pause, resume, cancel

    /// Pauses running job `id`: stored first (a restart leaves it paused), then its run in
    /// this process, if any, stops after the sends in flight, which this waits for. Returns
    /// the job as it stands then.
    public func pause(_ id: String) async throws(BroadcastError) -> BroadcastJob {
        try await stop(id, to: .paused, from: [.running])
    }

    /// Cancels running or paused job `id` for good (see `pause`): its pending recipients are
    /// never sent to.
    public func cancel(_ id: String) async throws(BroadcastError) -> BroadcastJob {
        try await stop(id, to: .cancelled, from: [.running, .paused])
    }

    /// Makes the next run of a job started by `origin` (`schedule:NAME`, …) pause itself once
    /// it has started `count` sends, exactly there: what a flow test's `pause_broadcast` step
    /// needs to stop a job halfway at a known recipient (a pause from outside lands wherever
    /// the job happens to be).
    public func pauseNextRun(origin: String, afterSends count: Int) {
        armedPauses.withLock { $0[origin] = max(0, count) }
    }

    /// Marks paused job `id` running again and returns it; `run` then sends the rest.
    public func resume(_ id: String) throws(BroadcastError) -> BroadcastJob {
        try move(id, to: .running, from: [.paused])
    }

    private func stop(_ id: String, to state: BroadcastJob.State, from: Set<BroadcastJob.State>) async throws(BroadcastError) -> BroadcastJob {
        _ = try move(id, to: state, from: from)
        if let control = running.withLock({ $0[id] }) {
            control.requestStop()
            await control.waitUntilEnded()
        }
        guard let job = try store.job(id) else { throw BroadcastError(.unknownJob, "no broadcast with id '\(id)'") }
        return job
    }

    private func move(_ id: String, to state: BroadcastJob.State, from: Set<BroadcastJob.State>) throws(BroadcastError) -> BroadcastJob {
        guard let before = try store.job(id) else { throw BroadcastError(.unknownJob, "no broadcast with id '\(id)'") }
        guard try store.transition(job: id, from: from, to: state, now: clock.now()) else {
            let current = try store.job(id) ?? before
            let verb = state == .paused ? "paused" : state == .cancelled ? "cancelled" : "resumed"
            throw BroadcastError(.invalidState, "broadcast '\(id)' is \(current.state.rawValue): only a job that is "
                                 + from.map(\.rawValue).sorted(by: >).joined(separator: " or ") + " can be \(verb)")
        }
        return try store.job(id) ?? before
    }

    /// Why a paused or cancelled job is not sent.
    static func notRunning(_ job: BroadcastJob) -> BroadcastError {
        let hint = job.state == .paused ? ": resume it first" : ""
        return BroadcastError(.invalidState, "broadcast '\(job.id)' is \(job.state.rawValue)\(hint)")
    }
}
