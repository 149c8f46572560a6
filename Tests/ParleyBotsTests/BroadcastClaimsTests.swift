import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import ParleyTesting
import Testing

/// Several runs of one job (processes sharing a PostgreSQL; here two services over one
/// store) claim its recipients in chunks: they send it together, each recipient once, and a
/// chunk whose run died is taken by another once its claim lapses.
struct BroadcastClaimsTests {
    /// Two services over one store and one hub, each with its own connection as `news`.
    struct TwoRuns {
        let first: BroadcastFixture
        let second: BroadcastService
        let secondTransport: HubTransport
        let clock: ManualClock

        init(database: TestDatabase, users: Int, configuration: BroadcastConfiguration) throws {
            let location = database.location("claims")
            clock = ManualClock()
            first = try BroadcastFixture(users: users, storePath: location, clock: clock, configuration: configuration)
            second = BroadcastService(store: try BroadcastStore(path: location), clock: clock, configuration: configuration)
            secondTransport = try first.hub.connect(user: "news")
        }

        func create(_ count: Int, rate: Rate?) throws -> String {
            var audience = BroadcastRecipients()
            try audience.append(targets: BroadcastFixture.targets(0..<count))
            return try first.service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: "Hi"),
                                            recipients: audience, rate: rate).job.id
        }

        func sentTo(_ users: Range<Int>) throws -> [Int] {
            try users.map { try first.messages(to: "u\($0)").count }
        }

        /// The messages `users` got once they are `expected`, or as they are after some five
        /// seconds: a run hands each send to a task of its own and may go to sleep on the clock
        /// (for its next token) before that task has delivered.
        func sentTo(_ users: Range<Int>, awaiting expected: [Int]) async throws -> [Int] {
            for _ in 0..<5_000 {
                let sent = try sentTo(users)
                if sent == expected { return sent }
                try await Task.sleep(for: .milliseconds(1))
            }
            return try sentTo(users)
        }

        /// Starts the first service's run of `id`, waits until it sleeps on the clock, then
        /// starts the second's and waits until both sleep; the two runs.
        func startBoth(_ id: String) async throws -> [Task<BroadcastReport, any Error>] {
            let first = self.first.service, firstTransport = self.first.transport
            let second = self.second, secondTransport = self.secondTransport
            let a = Task { try await first.run(id, transport: firstTransport) }
            try await withTimeout { await clock.waitForSleepers(1) }
            let b = Task { try await second.run(id, transport: secondTransport) }
            try await withTimeout { await clock.waitForSleepers(2) }
            return [a, b]
        }

        /// Moves the clock a second at a time until `runs` end (bounded: two minutes of clock).
        /// Time moves only once every run still going sleeps on the clock: a run still busy
        /// sending would otherwise miss a second, and its claim could lapse under it.
        func advanceUntilDone(_ runs: [Task<BroadcastReport, any Error>]) async throws -> [BroadcastReport] {
            let endedRuns = Locked(0)
            for run in runs { Task { _ = try? await run.value; endedRuns.mutate { $0 += 1 } } }
            let clock = self.clock
            for _ in 0..<120 {
                try await withTimeout("every run going to sleep on the clock or ending") {
                    while clock.sleeperCount < runs.count - endedRuns.value { try await Task.sleep(for: .milliseconds(1)) }
                }
                if endedRuns.value == runs.count { break }
                await clock.advance(by: .seconds(1))
            }
            return try await withTimeout {
                var reports: [BroadcastReport] = []
                for run in runs { reports.append(try await run.value) }
                return reports
            }
        }
    }

    @Test(arguments: TestDatabase.kinds) func twoRunsSendOneJobTogetherEachRecipientOnce(database: TestDatabase) async throws {
        let runs = try TwoRuns(database: database, users: 4, configuration: BroadcastConfiguration(pageSize: 2, random: { 0.5 }))
        let id = try runs.create(4, rate: Rate(count: 1, per: .seconds(1)))
        // The first run claims u0 and u1, sends u0 and waits for its next token; the second
        // claims the next chunk, u2 and u3, and does the same.
        let both = try await runs.startBoth(id)
        // Read first, so a failure shows what was sent (an expectation on a throwing call does not).
        let sentWhileBothWait = try await runs.sentTo(0..<4, awaiting: [1, 0, 1, 0])
        #expect(sentWhileBothWait == [1, 0, 1, 0])
        let reports = try await runs.advanceUntilDone(both)
        #expect(reports.map(\.sentThisRun) == [2, 2])
        #expect(try runs.sentTo(0..<4) == [1, 1, 1, 1])
        let job = try #require(try runs.first.store.job(id))
        #expect(job.state == .finished && job.sent == 4 && job.pending == 0)
    }

    @Test(arguments: TestDatabase.kinds) func aChunkWhoseRunDiedIsSentOnceItsClaimLapses(database: TestDatabase) async throws {
        let runs = try TwoRuns(database: database, users: 4, configuration: BroadcastConfiguration(pageSize: 2, random: { 0.5 }, claimFor: 15))
        let id = try runs.create(4, rate: nil)
        // A run of another process claimed u0 and u1 and died.
        let now = runs.clock.now()
        #expect(try runs.first.store.claim(job: id, by: "dead", limit: 2, now: now, until: now.addingTimeInterval(15)).map(\.position) == [0, 1])
        let second = runs.second, transport = runs.secondTransport
        let run = Task { try await second.run(id, transport: transport) }
        // It sends what is free and waits for the dead run's claim.
        try await withTimeout { await runs.clock.waitForSleepers(1) }
        #expect(try runs.sentTo(0..<4) == [0, 0, 1, 1])
        await runs.clock.advance(by: .seconds(14))
        try await withTimeout { await runs.clock.waitForSleepers(1) }
        #expect(try runs.sentTo(0..<4) == [0, 0, 1, 1])
        let reports = try await runs.advanceUntilDone([run])
        #expect(reports.map(\.sentThisRun) == [4])
        #expect(try runs.sentTo(0..<4) == [1, 1, 1, 1])
        #expect(try runs.first.store.job(id)?.state == .finished)
    }

    @Test(arguments: TestDatabase.kinds) func aRunKeepsItsChunkWhileItSendsLongerThanAClaimLasts(database: TestDatabase) async throws {
        let runs = try TwoRuns(database: database, users: 4, configuration: BroadcastConfiguration(pageSize: 4, random: { 0.5 }, claimFor: 2))
        let id = try runs.create(4, rate: Rate(count: 1, per: .seconds(1)))
        // The second run finds every recipient claimed, for two seconds only; the first run
        // renews its claim as it sends one a second, so the second sends none.
        let both = try await runs.startBoth(id)
        let reports = try await runs.advanceUntilDone(both)
        #expect(reports.map(\.sentThisRun) == [4, 0])
        #expect(try runs.sentTo(0..<4) == [1, 1, 1, 1])
        #expect(try runs.first.store.job(id)?.state == .finished)
    }

    @Test(arguments: TestDatabase.kinds) func aClaimNeverSpansAnotherRunsSoALapsedChunkIsNotHidden(database: TestDatabase) throws {
        let runs = try TwoRuns(database: database, users: 6, configuration: BroadcastConfiguration(random: { 0.5 }))
        let id = try runs.create(6, rate: nil)
        let store = runs.first.store, now = runs.clock.now()
        func claim(_ claimant: String, at time: Date, for seconds: TimeInterval = 15) throws -> [Int] {
            try store.claim(job: id, by: claimant, limit: 10, now: time, until: time.addingTimeInterval(seconds)).map(\.position)
        }
        #expect(try store.claim(job: id, by: "dead", limit: 2, now: now, until: now.addingTimeInterval(15)).map(\.position) == [0, 1])
        #expect(try claim("alive", at: now, for: 100) == [2, 3, 4, 5])
        try store.releaseClaims(job: id, by: "alive")
        #expect(try store.claim(job: id, by: "alive", limit: 2, now: now, until: now.addingTimeInterval(100)).map(\.position) == [2, 3])
        let later = now.addingTimeInterval(20)
        // The dead run's 0 and 1 lapsed: taken alone, not with 4 and 5 across the live claim.
        #expect(try claim("next", at: later) == [0, 1])
        #expect(try claim("next", at: later) == [4, 5])
        try store.record(job: id, [0, 1, 4, 5].map { BroadcastRecipient(position: $0, channel: .person("u\($0)"), outcome: .sent(messageID: "m\($0)")) })
        // Once the live claim lapses too, 2 and 3 are free for anyone.
        #expect(try claim("last", at: now.addingTimeInterval(101)) == [2, 3])
    }

    @Test func aSQLiteStoreGivesBackTheClaimsOfRunsThatDiedWithTheProcess() async throws {
        let location = TestDatabase.sqlite.location("claims")
        // A clock that only moves when told: a run that waited for the dead claim would not end.
        let before = try BroadcastFixture(users: 2, storePath: location, clock: ManualClock())
        var audience = BroadcastRecipients()
        try audience.append(targets: BroadcastFixture.targets(0..<2))
        let id = try before.service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: "Hi"), recipients: audience).job.id
        let now = before.clock.now()
        _ = try before.store.claim(job: id, by: "died", limit: 2, now: now, until: now.addingTimeInterval(3600))
        // The next process's service: nothing waits for the dead run's hour.
        let after = BroadcastService(store: try BroadcastStore(path: location), clock: before.clock)
        let report = try await withTimeout { try await after.run(id, transport: before.transport) }
        #expect(report.sentThisRun == 2 && report.pending == 0)
    }
}
