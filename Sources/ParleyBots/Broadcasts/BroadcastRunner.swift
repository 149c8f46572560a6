import Foundation
import ParleyCore
import Synchronization

/// One run of one job: reads pending recipients page by page, renders each message, keeps
/// up to `concurrency` sends in flight within the rate limits, retries transient failures,
/// and writes outcomes in batches. Everything waits on the injected clock.
struct BroadcastRunner: Sendable {
    let job: BroadcastJob
    let route: BroadcastRoute
    let store: BroadcastStore
    let clock: any ParleyClock
    let configuration: BroadcastConfiguration
    /// Whether a recipient still pending may have been sent already (a resumed job): its
    /// sends are marked as resends, so a server that keeps only its newest receipts in memory
    /// looks for the first one.
    let mayRepeat: Bool
    /// A pause or cancel: no new send starts once it is asked for.
    let control: BroadcastRunControl
    /// Pause (stored) before the send after this many (see `BroadcastService.pauseNextRun`).
    var pauseAfter: Int? = nil
    /// For a job to an audience created by this process from members read after this opt-out
    /// mark (`BroadcastStore.optOutMark`): nobody in it had opted out then, so its pages need
    /// no look-up until an opt-out comes.
    var cleanAsOf: UInt64? = nil

    /// Tallies of this run.
    struct Progress {
        var sent = 0
        var failed = 0
        var reasons: [String: Int] = [:]
        var done: [BroadcastRecipient] = []
        let recorder: OutcomeRecorder
        var claims: RunClaims
        /// Recipients claimed at a time: on a shared database a share of the job, so the processes
        /// share a job out; else a page.
        let chunk: Int
        /// Outcomes written together: on a shared database a chunk's worth, so a process that
        /// takes over a dead one's chunk finds most of it recorded.
        let recordEvery: Int
    }

    func run() async throws(BroadcastError) -> BroadcastReport {
        let started = clock.now()
        let chunk = store.isShared ? configuration.chunk(pending: job.pending) : configuration.pageSize
        let claims = RunClaims(job: job.id, store: store, span: configuration.claimFor)
        var progress = Progress(recorder: OutcomeRecorder(store: store, job: job.id, sender: claims.claimant), claims: claims, chunk: chunk,
                                recordEvery: store.isShared ? min(configuration.recordBatch, chunk) : configuration.recordBatch)
        var stopped = false
        // On a shared database the claims are also renewed beside the run: it may wait longer
        // than a claim lasts for sends in flight, and another process must not take them meanwhile.
        let renewer = store.isShared ? progress.claims.renewEvery(third: clock) : nil
        defer { renewer?.cancel() }
        do {
            try await send(&progress)
        } catch let error as BroadcastError {
            try? flush(&progress)
            try? await progress.recorder.settle()
            await RunClaims.stop(renewer)
            try? progress.claims.release()
            throw error
        } catch {
            // Cancelled: keep what is known, leave the rest pending for the next run.
            stopped = true
        }
        try flush(&progress)
        try await progress.recorder.settle()
        // Only once its outcomes are written: a recipient sent and released before would be
        // free for another run to send again.
        await RunClaims.stop(renewer)
        try progress.claims.release()
        var current = try store.job(job.id) ?? job
        // Paused with nothing left (the last sends were in flight) is finished too.
        if !stopped && current.pending == 0 {
            try store.finish(job: job.id, now: clock.now())
            current = try store.job(job.id) ?? current
        }
        let reasons = progress.reasons.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(5).map { (reason: $0.key, count: $0.value) }
        return BroadcastReport(job: job.id, bot: job.bot, total: current.total, sent: current.sent, failed: current.failed,
                               optedOut: current.optedOut, pending: current.pending, sentThisRun: progress.sent,
                               duration: .milliseconds(Int64((clock.now().timeIntervalSince(started) * 1000).rounded())),
                               failureReasons: Array(reasons))
    }

    private func send(_ progress: inout Progress) async throws {
        var bucket = job.ratePerSecond.map { TokenBucket(rate: BroadcastConfiguration.bucketRate(perSecond: $0)) }
        try await withThrowingTaskGroup(of: BroadcastRecipient.self) { group in
            var inFlight = 0, started = 0
            var stored = StoredState(job: job.id, store: store)
            let chunk = progress.chunk
            // Bounded: each chunk claims at least one pending recipient, which its send or a
            // skip records (or which another run holds from then on).
            pages: while !control.isStopping {
                // On a shared database the next chunk is claimed once most of this one is sent:
                // a run holds what it can send soon, and the other processes claim the rest.
                if store.isShared { try await collect(from: &group, downTo: chunk / 2, inFlight: &inFlight, into: &progress) }
                var page = try progress.claims.claim(limit: chunk, now: clock.now())
                if page.isEmpty {
                    // Nothing free: other runs hold the rest. This run's sends end (and are
                    // written) before it waits, so its own claims cannot lapse meanwhile.
                    try await collect(from: &group, downTo: 0, inFlight: &inFlight, into: &progress)
                    try flush(&progress)
                    // Written too: a run ending meanwhile must find these recipients done, or it
                    // would wait for this run's claims as this one waits for its.
                    try await progress.recorder.settle()
                    page = try await progress.claims.waitForLapse(limit: chunk, clock: clock, control: control, stored: &stored)
                }
                guard !page.isEmpty else { break }
                let names = job.message.needsNames ? await self.names(of: page.map(\.channel)) : [:]
                var optOuts = try OptOuts(job: job, store: store, page: page, cleanAsOf: cleanAsOf)
                // Encrypted Matrix rooms get the page's keys in one claim, not one per recipient
                // (no room is made for one who opted out).
                var coming: [Channel] = []
                for recipient in page where try !optOuts.contains(recipient.position) { coming.append(recipient.channel) }
                await route.prepare(coming)
                for recipient in page {
                    try Task.checkCancellation()
                    try await collect(from: &group, downTo: configuration.concurrency - 1, inFlight: &inFlight, into: &progress)
                    // Checked before the wait for a token (one who left takes none) and after it
                    // (one who leaves during the wait is skipped too).
                    if try optOuts.contains(recipient.position) {
                        try skip(recipient, into: &progress)
                        continue
                    }
                    if let pauseAfter, started >= pauseAfter {
                        _ = try store.transition(job: job.id, from: [.running], to: .paused, now: clock.now())
                        break pages
                    }
                    // A pause or cancel lets the sends in flight end (and be recorded) and starts no other.
                    guard try await pace(&bucket) else { break pages }
                    if try stored.stoppedElsewhere(at: clock.now()) { break pages }
                    guard try progress.claims.holds(recipient.position, now: clock.now()) else { continue }
                    if try optOuts.contains(recipient.position) {
                        try skip(recipient, into: &progress)
                        continue
                    }
                    var envelope = OutgoingEnvelope(
                        channel: recipient.channel, clientMessageID: BroadcastUUID.message(job: job.id, target: recipient.channel.target),
                        payload: recipient.payload ?? job.message.render(for: recipient.channel, name: names[recipient.channel]))
                    envelope.isResend = mayRepeat
                    group.addTask { await deliver(envelope, recipient) }
                    inFlight += 1
                    started += 1
                }
            }
            try await collect(from: &group, downTo: 0, inFlight: &inFlight, into: &progress)
        }
    }

    /// Collects finished sends until at most `limit` are in flight.
    private func collect(from group: inout ThrowingTaskGroup<BroadcastRecipient, any Error>, downTo limit: Int, inFlight: inout Int,
                         into progress: inout Progress) async throws {
        while inFlight > limit, let finished = try await group.next() {
            inFlight -= 1
            try collect(finished, into: &progress)
        }
    }

    private func collect(_ recipient: BroadcastRecipient, into progress: inout Progress) throws(BroadcastError) {
        switch recipient.outcome {
        case .sent?: progress.sent += 1
        case .failed(let reason)?:
            progress.failed += 1
            progress.reasons[reason, default: 0] += 1
        case .optedOut?: break
        case nil: return
        }
        progress.done.append(recipient)
        if progress.done.count >= progress.recordEvery { try flush(&progress) }
    }

    /// Records that `recipient` left the job's audience before their turn.
    private func skip(_ recipient: BroadcastRecipient, into progress: inout Progress) throws(BroadcastError) {
        var skipped = recipient
        skipped.outcome = .optedOut
        try collect(skipped, into: &progress)
    }

    private func flush(_ progress: inout Progress) throws(BroadcastError) {
        guard !progress.done.isEmpty else { return }
        try progress.recorder.record(progress.done)
        progress.done.removeAll(keepingCapacity: true)
    }

    /// Waits for a token of the job's rate and of the host-wide cap. Each wait ends a
    /// microsecond after the instant the bucket said, so floating-point rounding cannot
    /// leave it a hair short of a token and spinning; the rounds are capped regardless.
    /// False, at once, when the run is to stop (a pause or cancel, also during a wait).
    private func pace(_ bucket: inout TokenBucket?) async throws -> Bool {
        if var current = bucket {
            for _ in 0..<Self.maxWaits {
                guard let next = current.nextAvailable(at: clock.now()) else { break }
                guard try await control.sleep(on: clock, until: next.addingTimeInterval(Self.slack)) else { return false }
            }
            current.take(at: clock.now())
            bucket = current
        }
        if let global = configuration.globalLimit {
            for _ in 0..<Self.maxWaits {
                guard let next = global.acquire(at: clock.now()) else { break }
                guard try await control.sleep(on: clock, until: next.addingTimeInterval(Self.slack)) else { return false }
            }
        }
        return !control.isStopping
    }

    private static let slack: TimeInterval = 0.000_001
    private static let maxWaits = 1_000

    /// One recipient: send, retrying transient errors with backoff (rate-limit refusals are
    /// waited out up to the policy's patience, not counted as attempts). A cancelled send, or
    /// one whose retry a pause or cancel cuts short, stays pending (outcome nil): whether the
    /// server got it is unknown, and the resend is safe.
    private func deliver(_ envelope: OutgoingEnvelope, _ recipient: BroadcastRecipient) async -> BroadcastRecipient {
        var result = recipient
        let policy = configuration.retry
        var failures = 0
        var rateLimitedSince: Date?
        // Bounded: every turn either returns, counts a failure (at most maxAttempts), or is a
        // refusal, which ends once the patience has passed on the clock.
        while true {
            result.attempts += 1
            do {
                let receipt = try await route.send(envelope)
                result.outcome = .sent(messageID: receipt.messageID)
                return result
            } catch {
                if Task.isCancelled { return result }
                let failure = ParleyError.wrapping(error, as: .serverError)
                let now = clock.now()
                if failure.code == .rateLimited { rateLimitedSince = rateLimitedSince ?? now } else { failures += 1 }
                let waited = Duration.seconds(now.timeIntervalSince(rateLimitedSince ?? now))
                guard policy.shouldRetry(failure, attempts: failures, waited: waited) else {
                    if !failure.isTransient {
                        result.outcome = .failed(reason: "\(failure.code): \(failure.message)")
                    } else if failure.code == .rateLimited {
                        result.outcome = .failed(reason: "\(failure.code) for \(policy.rateLimitPatience): \(failure.message)")
                    } else {
                        result.outcome = .failed(reason: "\(failure.code) after \(failures) attempts: \(failure.message)")
                    }
                    return result
                }
                let delay = policy.delay(afterAttempt: max(1, failures), retryAfter: failure.retryAfter, random: configuration.random())
                do {
                    guard try await control.sleep(on: clock, until: clock.now().addingTimeInterval(delay.timeInterval)) else { return result }
                } catch {
                    return result
                }
            }
        }
    }

    /// Display names of the person recipients, 100 ids a request; a failed request leaves
    /// those recipients to be greeted by id.
    private func names(of channels: [Channel]) async -> [Channel: String] {
        let ids = channels.filter { $0.kind == .person }.map(\.id)
        var names: [Channel: String] = [:]
        for start in stride(from: 0, to: ids.count, by: 100) {
            guard let profiles = try? await route.profiles(Array(ids[start..<min(start + 100, ids.count)])) else { continue }
            for profile in profiles { names[.person(profile.id)] = profile.displayName }
        }
        return names
    }
}

/// A pause or cancel asked of another process (its console or API, on a shared PostgreSQL)
/// reaches this run only through the store: the run reads its job's state before its first
/// send and then at most once a second of its clock, so it stops within a second of the
/// request (and of its rate's next token), as it does for a pause asked here.
struct StoredState {
    let job: String
    let store: BroadcastStore
    private var checked: Date?

    init(job: String, store: BroadcastStore) {
        self.job = job
        self.store = store
    }

    /// True when the stored job is no longer running (paused, cancelled, or gone).
    mutating func stoppedElsewhere(at now: Date) throws(BroadcastError) -> Bool {
        if let checked, now.timeIntervalSince(checked) < 1, now >= checked { return false }
        checked = now
        return try store.job(job)?.state != .running
    }
}

/// The recipients of one page of a job to an audience who have opted out: read with the page,
/// and read again for the page whenever an opt-out was recorded since (so one who opts out
/// while the job runs is skipped from that moment). A job without an audience has none.
struct OptOuts {
    private let job: BroadcastJob
    private let store: BroadcastStore
    private let positions: ClosedRange<Int>?
    private var generation: UInt64 = 0
    private var skipped: Set<Int> = []

    /// `cleanAsOf`: the opt-out mark at which the page is known to hold nobody who opted out
    /// (its look-up is skipped while the mark has not moved); nil: look them up.
    init(job: BroadcastJob, store: BroadcastStore, page: [BroadcastRecipient], cleanAsOf: UInt64?) throws(BroadcastError) {
        self.job = job
        self.store = store
        positions = job.audience == nil ? nil : page.first.flatMap { first in page.last.map { first.position...$0.position } }
        if let cleanAsOf {
            generation = cleanAsOf
        } else {
            try refresh()
        }
    }

    mutating func contains(_ position: Int) throws(BroadcastError) -> Bool {
        guard positions != nil else { return false }
        if store.optOutGeneration.load(ordering: .sequentiallyConsistent) != generation { try refresh() }
        return skipped.contains(position)
    }

    private mutating func refresh() throws(BroadcastError) {
        guard let positions, let audience = job.audience else { return }
        // Read before the query: an opt-out recorded during it moves the generation again.
        generation = store.optOutGeneration.load(ordering: .sequentiallyConsistent)
        skipped = try store.optedOut(job: job.id, bot: job.bot, audience: audience, positions: positions)
    }
}
