import Foundation

/// A process's leases as a value: the bots it holds, those it backs off from, and the
/// decisions taken from them — which bots to try to take, which lapsed, which to hand over —
/// as functions of it and the time alone. `LeaseKeeper` does the database calls and keeps
/// one of these under its lock; `LeasePlanTests` check the decisions without a database.
struct LeasePlan: Equatable {
    struct Held: Equatable {
        var generation: Int64
        /// When this process must have stopped acting for the bot unless renewed: the start of
        /// the last successful renewal plus the lease, less `margin` for the stop itself.
        var actUntil: ContinuousClock.Instant
        /// Taken beyond this process's share: never handed over.
        var orphan: Bool
        /// When it was taken: a bot is handed over only once it has run here for two leases.
        var since: ContinuousClock.Instant
        /// True while the host is starting it (a take-over under way): not handed over then,
        /// as the host could not yet stop it.
        var starting = false
    }

    let lease: Duration
    private(set) var held: [String: Held] = [:]
    /// Bots this process could not start, with when it may take them again: two leases, so
    /// that another process can take one over as an orphan (it must have been free for a
    /// whole lease).
    private(set) var backingOff: [String: ContinuousClock.Instant] = [:]

    init(lease: Duration) { self.lease = lease }

    /// The part of the lease kept back: the bot is stopped this long before the lease expires.
    var margin: Duration { lease / 5 }

    var generations: [String: Int64] { held.mapValues(\.generation) }

    /// The bots of `bots` to try to take at `now`, in order: neither held nor backed off from
    /// (back-offs over by then are dropped).
    mutating func candidates(among bots: [String], at now: ContinuousClock.Instant) -> [String] {
        backingOff = backingOff.filter { $0.value > now }
        return bots.filter { held[$0] == nil && backingOff[$0] == nil }
    }

    /// Whether a bot taken now goes beyond `share` (an orphan: taken only once it has been
    /// free for a whole lease, and kept).
    func takesOrphan(share: Int) -> Bool { held.count >= share }

    /// `bot` was taken at `generation` by an acquire that started at `started`.
    mutating func took(_ bot: String, generation: Int64, startedAt started: ContinuousClock.Instant, orphan: Bool) {
        held[bot] = Held(generation: generation, actUntil: started + lease - margin, orphan: orphan, since: started)
    }

    /// A renewal of `bot` at `generation` that started at `started` succeeded (ignored if the
    /// bot was lost and taken again meanwhile).
    mutating func renewed(_ bot: String, generation: Int64, startedAt started: ContinuousClock.Instant) {
        guard held[bot]?.generation == generation else { return }
        let actUntil = started + lease - margin
        held[bot]?.actUntil = actUntil
    }

    /// The bots whose time to act ran out by `now` (not renewed in time).
    func lapsed(at now: ContinuousClock.Instant) -> [String] {
        held.filter { $0.value.actUntil <= now }.map(\.key).sorted()
    }

    /// The bots to hand over to get down to `share`: the last by name, never an orphan, one
    /// still starting or one taken less than two leases before `now` (so a bot does not move
    /// twice in a row after a restart or a database cut).
    func handOvers(beyond share: Int, at now: ContinuousClock.Instant) -> [String] {
        let over = held.count - share
        guard over > 0 else { return [] }
        let movable = held.filter { !$0.value.orphan && !$0.value.starting && now - $0.value.since >= lease * 2 }
        return Array(movable.keys.sorted().suffix(over))
    }

    /// Drops `bots` from the held ones; those that were held.
    mutating func drop(_ bots: [String]) -> [String] {
        var gone: [String] = []
        for bot in bots where held.removeValue(forKey: bot) != nil { gone.append(bot) }
        return gone
    }

    /// Marks `bots`, taken at these generations, as starting or started.
    mutating func setStarting(_ bots: [String: Int64], _ starting: Bool) {
        for (bot, generation) in bots where held[bot]?.generation == generation { held[bot]?.starting = starting }
    }

    /// Whether `bot` is still held at `generation`.
    func holds(_ bot: String, at generation: Int64) -> Bool { held[bot]?.generation == generation }

    /// `bot`, taken at `generation`, could not start: given back (true) unless lost meanwhile,
    /// and left alone for two leases from `now`.
    mutating func giveBack(_ bot: String, generation: Int64, at now: ContinuousClock.Instant) -> Bool {
        guard held[bot]?.generation == generation else { return false }
        held.removeValue(forKey: bot)
        backingOff[bot] = now + lease * 2
        return true
    }

    /// Drops every lease (the process stops); those held.
    mutating func dropAll() -> [String: Int64] {
        defer { held = [:] }
        return generations
    }
}
