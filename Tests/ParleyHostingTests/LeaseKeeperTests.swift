import Foundation
import ParleyTesting
import ParleyStore
import Synchronization
import Testing
@testable import ParleyHosting

/// Two keepers (two processes) on the test PostgreSQL; skipped without one. Leases of 2 s:
/// waits are bounded polls of what the keepers report, never fixed sleeps.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, "no PostgreSQL: run scripts/postgres start"))
struct LeaseKeeperTests {
    final class Recorder: Sendable {
        let taken = Mutex<[String]>([])
        let lost = Mutex<[String]>([])
        /// Bots this process cannot start (its homeserver refuses them, say): given back.
        let cannotStart: Set<String>
        /// While true, a take-over's start does not end (a slow login, say).
        let slowStart = Atomic<Bool>(false)
        init(cannotStart: Set<String> = []) { self.cannotStart = cannotStart }
        var actions: LeaseKeeper.Actions {
            LeaseKeeper.Actions(taken: { bots in
                self.taken.withLock { $0 += bots.keys.sorted() }
                // Bounded: the test ends the slow start within its own bounded wait.
                for _ in 0..<6_000 where self.slowStart.load(ordering: .sequentiallyConsistent) {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                return Set(bots.keys).subtracting(self.cannotStart)
            }, lost: { bots in self.lost.withLock { $0 += bots } }, held: { _ in })
        }
    }

    func keeper(_ bots: [String], fences: FenceBook = FenceBook(), lease: Duration = .seconds(2)) throws -> LeaseKeeper {
        LeaseKeeper(store: try LeaseStore(location: TestDatabase.postgresURL ?? ""), processID: LeaseKeeper.newProcessID(),
                    bots: bots, lease: lease, fences: fences, log: { _, _, _ in })
    }

    /// Polls `condition` every 50 ms for at most `seconds`.
    func eventually(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        for _ in 0..<Int(seconds * 20) {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    @Test func theSecondProcessTakesItsShareWhenItJoinsAndEverythingWhenTheFirstStops() async throws {
        let bots = ["news-\(UUID().uuidString.prefix(6))", "support-\(UUID().uuidString.prefix(6))"]
        let fencesA = FenceBook()
        // A 5 s lease: A's renewals (every 1.7 s) must stay on time while the whole suite runs
        // beside it on 2 cores; with 2 s a late renewal let the watchdog stop A under load.
        let a = try keeper(bots, fences: fencesA, lease: .seconds(5)), b = try keeper(bots, lease: .seconds(5))
        #expect(Set(a.takeFree().keys) == Set(bots))
        #expect(b.takeFree().isEmpty)
        #expect(fencesA.fence(of: bots[1]) != nil)
        let recorderA = Recorder(), recorderB = Recorder()
        a.start(recorderA.actions)
        b.start(recorderB.actions)
        // B reported itself: A's share is one bot, so once A has run them for two leases it
        // stops the last by name and gives its lease back, and B takes it.
        #expect(await eventually(20) { recorderB.taken.withLock { $0 } == [bots[1]] })
        #expect(recorderA.lost.withLock { $0 } == [bots[1]])
        #expect(a.holdings.keys.sorted() == [bots[0]] && b.holdings.keys.sorted() == [bots[1]])
        #expect(fencesA.fence(of: bots[1]) == nil)
        await a.stop(releasing: true)
        #expect(fencesA.fence(of: bots[0]) == nil)
        #expect(await eventually(6) { Set(recorderB.taken.withLock { $0 }) == Set(bots) })
        #expect(Set(b.holdings.keys) == Set(bots))
        await b.stop(releasing: true)
    }

    /// Five bots over three processes: 2, 2 and 1. One dies (its heartbeat and renewals stop,
    /// its leases are not given back): the two left split all five within a lease or two.
    @Test func threeProcessesSplitTheBotsAndTheSurvivorsSplitADeadOnesBots() async throws {
        let tag = UUID().uuidString.prefix(6)
        let bots = (1...5).map { "bot\($0)-\(tag)" }
        let keepers = try (0..<3).map { _ in try keeper(bots, lease: .seconds(3)) }
        let recorders = (0..<3).map { _ in Recorder() }
        for (keeper, recorder) in zip(keepers, recorders) {
            _ = keeper.takeFree()
            keeper.start(recorder.actions)
        }
        func counts(_ alive: [LeaseKeeper]) -> [Int] { alive.map(\.holdings.count).sorted() }
        func all(_ alive: [LeaseKeeper]) -> Set<String> { Set(alive.flatMap(\.holdings.keys)) }
        #expect(await eventually(25) { counts(keepers) == [1, 2, 2] && all(keepers) == Set(bots) })
        // The one with two bots dies: its leases run out, as its reports do.
        let dead = try #require(keepers.first { $0.holdings.count == 2 })
        let survivors = keepers.filter { $0 !== dead }
        await dead.stop(releasing: false)
        #expect(await eventually(15) { counts(survivors) == [2, 3] && all(survivors) == Set(bots) })
        for keeper in survivors { await keeper.stop(releasing: true) }
    }

    /// A bot handed to a process that cannot start it is given back, and after a whole lease
    /// free it is an orphan: the process at its share takes it beyond it and keeps it; its
    /// other bot then goes to the process under its share, which can start that one.
    @Test func aBotNoProcessUnderItsShareCanStartIsTakenAsAnOrphan() async throws {
        let bots = ["a-\(UUID().uuidString.prefix(6))", "b-\(UUID().uuidString.prefix(6))"]
        let a = try keeper(bots, lease: .seconds(3)), b = try keeper(bots, lease: .seconds(3))
        #expect(Set(a.takeFree().keys) == Set(bots))
        let recorderA = Recorder(), recorderB = Recorder(cannotStart: [bots[1]])
        a.start(recorderA.actions)
        b.start(recorderB.actions)
        // A hands b-… over, B cannot start it and gives it back; A takes it back as an orphan
        // and hands a-… over instead, which B runs.
        // (The holdings change as a lease is taken; the actions run just after, on the pool.)
        #expect(await eventually(30) {
            a.holdings.keys.sorted() == [bots[1]] && b.holdings.keys.sorted() == [bots[0]]
                && recorderB.taken.withLock { $0 } == [bots[1], bots[0]] && recorderA.lost.withLock { $0 }.count == 2
        })
        #expect(recorderA.taken.withLock { $0 } == [bots[1]] && recorderA.lost.withLock { $0 } == [bots[1], bots[0]])
        #expect(recorderB.taken.withLock { $0 } == [bots[1], bots[0]])
        // Settled: nothing changes hands for more than a lease.
        #expect(await !eventually(4) { recorderA.lost.withLock { $0 }.count > 2 || recorderB.taken.withLock { $0 }.count > 2 })
        await a.stop(releasing: true)
        await b.stop(releasing: true)
    }

    /// A bot whose take-over is still starting is not handed over (the host could not stop it
    /// yet, and it would run on without its lease): seen in a fresh-clone run after a database
    /// cut, where the first process back took every bot and handed one over while starting it.
    @Test func aBotStillStartingIsNotHandedOver() async throws {
        let bots = ["x-\(UUID().uuidString.prefix(6))", "y-\(UUID().uuidString.prefix(6))"]
        let a = try keeper(bots, lease: .seconds(2)), b = try keeper(bots, lease: .seconds(2))
        let recorderA = Recorder(), recorderB = Recorder()
        recorderA.slowStart.store(true, ordering: .sequentiallyConsistent)
        a.start(recorderA.actions)  // its first round takes both, and their start hangs
        #expect(await eventually(10) { recorderA.taken.withLock { $0 }.count == 2 })
        _ = b.takeFree()
        b.start(recorderB.actions)
        // Three leases (past the two a bot runs before it may move): A, over its share, still
        // hands nothing over while the start is under way.
        #expect(await !eventually(6) { !recorderA.lost.withLock { $0 }.isEmpty })
        recorderA.slowStart.store(false, ordering: .sequentiallyConsistent)
        #expect(await eventually(10) { recorderB.taken.withLock { $0 } == [bots[1]] && recorderA.lost.withLock { $0 } == [bots[1]] })
        await a.stop(releasing: true)
        await b.stop(releasing: true)
    }

    /// The leases taken at start are renewed while the host connects and starts its bots, which
    /// can outlast the lease, before it can act on changes of hands; a bot lost meanwhile is
    /// stopped once it can. Renewed only once the host had started, a process's first leases
    /// lapsed in a fresh-clone cluster test and went to another process.
    @Test func theFirstLeasesAreRenewedWhileTheHostStarts() async throws {
        let bots = ["p-\(UUID().uuidString.prefix(6))", "q-\(UUID().uuidString.prefix(6))"]
        let a = try keeper(bots), b = try keeper(bots)
        let generations = a.takeFree()
        #expect(Set(generations.keys) == Set(bots))
        a.startRenewing()
        // Two leases of a slow start: A keeps both, B finds none free.
        #expect(await !eventually(4) { a.holdings.count < 2 || !b.takeFree().isEmpty })
        // One is taken from A meanwhile (as if A had been paused past its expiry).
        let other = try LeaseStore(location: TestDatabase.postgresURL ?? "")
        try other.release(bots[0], holder: a.processID, generation: generations[bots[0]] ?? 0)
        _ = try #require(try other.acquire(bots[0], holder: "intruder", seconds: 60))
        #expect(await eventually(3) { a.holdings.keys.sorted() == [bots[1]] })
        // The host can act now: the bot lost while it started is stopped.
        let recorder = Recorder()
        a.act(recorder.actions)
        #expect(await eventually(3) { recorder.lost.withLock { $0 } == [bots[0]] })
        await a.stop(releasing: true)
        await b.stop(releasing: true)
    }

    @Test func aKeeperWhoseLeaseWasTakenStopsTheBotAndDropsItsFence() async throws {
        let bot = "desk-\(UUID().uuidString.prefix(6))"
        let fencesA = FenceBook()
        let a = try keeper([bot], fences: fencesA)
        let generation = try #require(a.takeFree()[bot])
        let recorder = Recorder()
        a.start(recorder.actions)
        // Another process takes the lease over (as if A had been paused past its expiry).
        let other = try LeaseStore(location: TestDatabase.postgresURL ?? "")
        try other.release(bot, holder: a.processID, generation: generation)
        let stolen = try #require(try other.acquire(bot, holder: "intruder", seconds: 60))
        #expect(stolen == generation + 1)
        #expect(await eventually(3) { recorder.lost.withLock { $0 } == [bot] })
        #expect(a.holdings.isEmpty && fencesA.fence(of: bot) == nil)
        await a.stop(releasing: true)
    }
}

/// Lease renewals while the cooperative pool is blocked: in their own run (`RunAloneTests`).
@Suite(.enabled(if: TestDatabase.postgresURL != nil, "no PostgreSQL: run scripts/postgres start"),
       .enabled(if: RunAloneTests.enabled, "blocks the cooperative pool: run with PARLEY_RUN_ALONE_TESTS=1 --filter RunAloneTests"))
struct LeaseRenewalRunAloneTests {
    /// The renewals run on a thread of their own: while every thread of the cooperative pool is
    /// blocked (synchronous database calls, busy bots) for longer than the lease, the lease is
    /// still renewed on time and the bot kept. On the pool, the renewals waited, the lease lapsed
    /// and another process took the bots of a live one (seen in a fresh-clone CI run).
    @Test func renewalsGoOnWhileTheCooperativePoolIsBlocked() async throws {
        let bot = "busy-\(UUID().uuidString.prefix(6))"
        let base = LeaseKeeperTests()
        let a = try base.keeper([bot])  // 2 s lease: renewed every 0.67 s, stopped 1.6 s after the last renewal
        #expect(a.takeFree()[bot] != nil)
        let recorder = LeaseKeeperTests.Recorder()
        a.start(recorder.actions)
        let reader = try LeaseStore(location: TestDatabase.postgresURL ?? "")
        let blocked = PoolBlocker(seconds: 2.5) { try? reader.leases().first { $0.name == bot } }
        await blocked.blockEveryPoolThread()
        let lease = try #require(blocked.seen)
        // Read at the end of the block, from a thread of its own: renewed within the last
        // renewal interval (plus the database's time under load), and still this process's.
        #expect(lease.now - lease.renewedAt < 1.5)
        #expect(lease.holder == a.processID && lease.isLive)
        #expect(await !base.eventually(1) { !recorder.lost.withLock { $0 }.isEmpty })
        #expect(Array(a.holdings.keys) == [bot])
        await a.stop(releasing: true)
    }
}

/// Blocks every thread of the cooperative pool for `seconds`, then runs `look` on a thread of
/// its own while they are still blocked, and lets them go.
final class PoolBlocker: Sendable {
    private let seconds: Double
    private let look: @Sendable () -> LeaseStore.Lease?
    private let release = DispatchSemaphore(value: 0)
    private let seenLease = Mutex<LeaseStore.Lease?>(nil)
    /// Twice the pool's width: every pool thread gets one, whatever else is queued.
    private let blockers = ProcessInfo.processInfo.activeProcessorCount * 2

    var seen: LeaseStore.Lease? { seenLease.withLock { $0 } }

    init(seconds: Double, look: @escaping @Sendable () -> LeaseStore.Lease?) {
        self.seconds = seconds
        self.look = look
    }

    func blockEveryPoolThread() async {
        let thread = Thread { [self] in
            Thread.sleep(forTimeInterval: seconds)
            let lease = look()
            seenLease.withLock { $0 = lease }
            for _ in 0..<blockers { release.signal() }
        }
        thread.start()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<blockers { group.addTask { self.block() } }
        }
    }

    /// Synchronous, so it may wait on the semaphore: that is the point.
    private func block() { release.wait() }
}
