import Foundation
import ParleyCore

/// One run's claims on its job's recipients (see `BroadcastStore+Claims`): the chunk it
/// claims next, the renewal that keeps its chunks while it sends them, and the wait for
/// chunks other runs hold when nothing is free.
struct RunClaims {
    let job: String
    let store: BroadcastStore
    /// How long a claim lasts; renewed once half of it has passed.
    let span: TimeInterval
    /// This run's name in the claims: its process (`host:pid`, which a sent recipient's row
    /// keeps, so `parley cluster` can tell which process sent how many) and a name of the
    /// run's own, so a run that died holds nothing a later run could mistake for its own.
    let claimant = "\(RunClaims.process) \(UUID().uuidString.prefix(13).lowercased())"

    /// This process as the claims name it.
    static let process = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
    private var until = Date.distantPast
    /// The positions still held after the last renewal; nil: the whole chunk (none renewed yet).
    private var held: Set<Int>?

    init(job: String, store: BroadcastStore, span: TimeInterval) {
        self.job = job
        self.store = store
        self.span = span
    }

    /// The next free chunk of up to `limit` recipients, claimed; empty when none is free now.
    mutating func claim(limit: Int, now: Date) throws(BroadcastError) -> [BroadcastRecipient] {
        let chunk = try store.claim(job: job, by: claimant, limit: limit, now: now, until: now.addingTimeInterval(span))
        if !chunk.isEmpty {
            until = now.addingTimeInterval(span)
            held = nil
        }
        return chunk
    }

    /// Whether this run still holds `position` (to send it); renews the run's claims first
    /// when half their span has passed. A position lost to another run (this run's claim
    /// lapsed while it was held up) is left to that run.
    mutating func holds(_ position: Int, now: Date) throws(BroadcastError) -> Bool {
        if now >= until.addingTimeInterval(-span / 2) {
            held = try store.renewClaims(job: job, by: claimant, until: now.addingTimeInterval(span), now: now)
            until = now.addingTimeInterval(span)
        }
        return held?.contains(position) ?? true
    }

    /// When nothing is free: waits until the first chunk another run holds lapses (looking
    /// again each second: its holder may finish it meanwhile, and this run then ends) and claims again. Empty when no
    /// other run holds anything (the job is done), when the run is to stop, or after
    /// `maxWaits` waits.
    mutating func waitForLapse(limit: Int, clock: any ParleyClock, control: BroadcastRunControl,
                               stored: inout StoredState) async throws -> [BroadcastRecipient] {
        for _ in 0..<Self.maxWaits {
            let now = clock.now()
            guard let lapse = try store.nextLapse(job: job, except: claimant), try !stored.stoppedElsewhere(at: now) else { return [] }
            let wake = max(now, min(lapse, now.addingTimeInterval(Self.poll))).addingTimeInterval(Self.slack)
            guard try await control.sleep(on: clock, until: wake) else { return [] }
            let chunk = try claim(limit: limit, now: clock.now())
            if !chunk.isEmpty { return chunk }
        }
        return []
    }

    /// Renews this run's claims every third of their span of real time until cancelled (a
    /// failed renewal is tried again at the next turn; `holds` finds what was lost).
    func renewEvery(third clock: any ParleyClock) -> Task<Void, Never> {
        let store = store, job = job, claimant = claimant, span = span
        return Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(span / 3))
                guard !Task.isCancelled else { return }
                let now = clock.now()
                _ = try? store.renewClaims(job: job, by: claimant, until: now.addingTimeInterval(span), now: now)
            }
        }
    }

    /// Stops a renewer and waits for it: a renewal after the release would claim again.
    static func stop(_ renewer: Task<Void, Never>?) async {
        renewer?.cancel()
        await renewer?.value
    }

    /// Gives this run's claims on recipients still pending back (its outcomes written).
    func release() throws(BroadcastError) {
        try store.releaseClaims(job: job, by: claimant)
    }

    /// A lapse is strictly before the claimer's "now": wake just after it.
    private static let slack: TimeInterval = 0.001
    private static let poll: TimeInterval = 1
    /// A day of waits a second: a run whose job others hold that long ends, and the job
    /// stays running for the next.
    private static let maxWaits = 86_400
}
