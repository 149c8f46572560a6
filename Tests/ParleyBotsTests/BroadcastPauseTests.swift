import Foundation
import ParleyTesting
@testable import ParleyBots
import ParleyCore
import ParleyHub
import ParleyStore
import Testing

/// Pausing, resuming and cancelling a job: stored (a reopened store, a restarted host, still
/// knows), honoured by its run (it stops after its sends in flight), and never a message twice.
@Suite struct BroadcastPauseTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: TestDatabase.kinds) func pausedAndCancelledJobsStaySoInAReopenedStoreAndAreNotResumedAtStart(database: TestDatabase) throws {
        let path = database.location("broadcasts")
        do {
            let store = try BroadcastStore(path: path)
            for id in ["running", "paused", "cancelled", "finished"] {
                #expect(try store.create(id: id, bot: "news", origin: "test", message: try BroadcastMessage(text: "hi"), ratePerSecond: nil,
                                         recipients: [.person("a"), .person("b")], now: Self.start))
            }
            #expect(try store.transition(job: "paused", from: [.running], to: .paused, now: Self.start))
            #expect(try store.transition(job: "cancelled", from: [.running, .paused], to: .cancelled, now: Self.start.addingTimeInterval(60)))
            try store.finish(job: "finished", now: Self.start)
            // Not from a state the transition does not start from; the job is left as it was.
            #expect(try !store.transition(job: "finished", from: [.paused], to: .running, now: Self.start))
            #expect(try !store.transition(job: "absent", from: [.running], to: .paused, now: Self.start))
            // A cancelled job is not finished by its last run's end.
            try store.finish(job: "cancelled", now: Self.start)
        }
        let store = try BroadcastStore(path: path)
        #expect(try store.job("paused")?.state == .paused)
        #expect(try store.job("paused")?.finished == nil)
        let cancelled = try #require(try store.job("cancelled"))
        #expect(cancelled.state == .cancelled && cancelled.pending == 2 && cancelled.cancelled == 2)
        #expect(cancelled.finished == Self.start.addingTimeInterval(60))
        #expect(try store.job("finished")?.state == .finished)
        #expect(try store.unfinishedJobs().map(\.id) == ["running"])
        // Retention takes cancelled jobs as it takes finished ones; a paused one stays.
        #expect(try store.prune(before: Self.start.addingTimeInterval(86_400)) == 2)
        #expect(try store.jobs().map(\.id).sorted() == ["paused", "running"])
    }

    /// A database written before jobs could pause (migration 1 only) opens, keeps its jobs,
    /// and takes the new states.
    @Test func aStoreOfTheFirstSchemaIsMigrated() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("parley.db")
        do {
            let old = try Migrations(name: "broadcast", steps: [BroadcastStore.migrations.steps[0]]).open(path)
            try old.run("INSERT INTO broadcast_jobs (id, bot, origin, payload, state, created, total) VALUES ('old', 'news', 'cli', ?, 'running', 0, 1)",
                        [.text(#"{"type":1,"text":"hi"}"#)])
            try old.run("INSERT INTO broadcast_recipients (job, position, target) VALUES ('old', 0, 'user:a')")
        }
        let store = try BroadcastStore(path: path)
        #expect(try store.unfinishedJobs().map(\.id) == ["old"])
        #expect(try store.transition(job: "old", from: [.running], to: .paused, now: Self.start))
        #expect(try store.job("old")?.state == .paused)
        #expect(try store.recipients(job: "old").filter { $0.outcome == nil }.map(\.channel) == [.person("a")])
    }

    /// At 1/s the run sends u0 at once and waits on the clock for u1: the pause ends that
    /// wait, and nothing more is sent. After a "crash" (a new service on the same files) the
    /// paused job is not resumed at start; resumed, it sends each of the rest once.
    @Test(arguments: TestDatabase.kinds) func aPausedRunStopsAndResumesAcrossARestartSendingEachRecipientOnce(database: TestDatabase) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let hubFile = folder.file("parley.db"), store = database.location("broadcasts")
        let clock = ManualClock()
        let id: String
        do {
            let fixture = try BroadcastFixture(users: 3, hubPath: hubFile, storePath: store, clock: clock)
            let (job, run) = try await fixture.startJobAtOnePerSecond(to: 3, text: "Hi {{recipient.id}}", clock: clock)
            id = job
            let service = fixture.service, transport = fixture.transport
            let paused = try await withTimeout { try await service.pause(id) }
            #expect(paused.state == .paused && paused.sent == 1 && paused.pending == 2)
            let report = try await run.value
            #expect(report.sent == 1 && report.pending == 2)
            #expect(try fixture.messages(to: "u0").count == 1)
            #expect(try fixture.messages(to: "u1").isEmpty)
            // A paused job is not run, not even asked for by id.
            await #expect(throws: BroadcastError(.invalidState, "broadcast '\(id)' is paused: resume it first")) {
                try await service.run(id, transport: transport)
            }
            await #expect(throws: BroadcastError.self) { try await service.pause(id) }
            try fixture.hub.close()
        }
        let reopened = try BroadcastFixture(users: 3, hubPath: hubFile, storePath: store, clock: clock, createUsers: false)
        #expect(try await reopened.service.runUnfinished { _ in reopened.transport }.isEmpty)
        #expect(try reopened.messages(to: "u1").isEmpty)
        #expect(try reopened.service.resume(id).state == .running)
        let service = reopened.service, transport = reopened.transport
        let run = Task { try await service.run(id, transport: transport) }
        try await withTimeout { await clock.waitForSleepers(1) }
        await clock.advance(by: .seconds(2))
        let report = try await withTimeout { try await run.value }
        #expect(report.sent == 3 && report.pending == 0)
        #expect(try reopened.store.job(id)?.state == .finished)
        for index in 0..<3 {
            #expect(try reopened.messages(to: "u\(index)").map { $0.payload["text"]?.stringValue } == ["Hi u\(index)"], "u\(index)")
        }
    }

    @Test(arguments: TestDatabase.kinds) func aCancelledRunSendsNothingMoreAndCannotBeResumed(database: TestDatabase) async throws {
        let clock = ManualClock()
        let fixture = try BroadcastFixture(users: 3, storePath: database.location("broadcasts"), clock: clock)
        let (id, run) = try await fixture.startJobAtOnePerSecond(to: 3, clock: clock)
        let service = fixture.service
        let cancelled = try await withTimeout { try await service.cancel(id) }
        #expect(cancelled.state == .cancelled && cancelled.sent == 1 && cancelled.cancelled == 2)
        _ = try await run.value
        await clock.advance(by: .seconds(10))
        #expect(try (0..<3).map { try fixture.messages(to: "u\($0)").count } == [1, 0, 0])
        #expect(throws: BroadcastError(.invalidState, "broadcast '\(id)' is cancelled: only a job that is paused can be resumed")) {
            try service.resume(id)
        }
        #expect(try fixture.store.job(id)?.state == .cancelled)
    }

    /// Another process (its console, on the shared database) pauses or cancels the job: it
    /// has no hold on this run, only the stored state, which the run reads once a second of its
    /// clock. At 1/s: u0 is sent, the pause is stored, and the next token (2 s on) finds it; nothing
    /// more is sent. Before the run read the state, it sent on to the end.
    @Test(arguments: TestDatabase.kinds) func aPauseOrCancelStoredByAnotherProcessStopsTheRun(database: TestDatabase) async throws {
        for stop in [BroadcastJob.State.paused, .cancelled] {
            let clock = ManualClock()
            let location = database.location("broadcasts-\(stop.rawValue)")
            let fixture = try BroadcastFixture(users: 5, storePath: location, clock: clock)
            let (id, run) = try await fixture.startJobAtOnePerSecond(to: 5, clock: clock)
            let elsewhere = BroadcastService(store: try BroadcastStore(path: location), clock: clock)
            let stopped = try await stop == .paused ? elsewhere.pause(id) : elsewhere.cancel(id)
            #expect(stopped.state == stop)  // its send to u0 is recorded by the run, at its end
            await clock.advance(by: .seconds(2))
            // A run that missed the stop waits on the clock for ever: the timeout cancels it.
            let report = try await withTimeout(seconds: 10) {
                try await withTaskCancellationHandler { try await run.value } onCancel: { run.cancel() }
            }
            #expect(report.sent == 1 && report.pending == 4, "\(stop)")
            #expect(try (0..<5).map { try fixture.messages(to: "u\($0)").count } == [1, 0, 0, 0, 0], "\(stop)")
            #expect(try fixture.store.job(id)?.state == stop)
        }
    }
}
