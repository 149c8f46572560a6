import Foundation
import ParleyCore
import ParleyHub
import ParleyTesting
import Synchronization
import Testing

/// On a store whose commit takes a round trip (PostgreSQL) the outbox commits off its actor:
/// what is submitted while a commit runs is written together by the next one, and sent in the
/// order submitted.
@Suite struct OutboxGroupCommitTests {
    /// A real outbox store whose commits count their items, the first held at a gate (opened
    /// by the test, or after 60 s so that an outbox blocked on it cannot hang the test).
    final class GatedCommits: OutboxStore {
        let base: DatabaseOutboxStore
        let inserted = Mutex<[Int]>([])
        let entered = Atomic<Bool>(false)
        private let gate = DispatchSemaphore(value: 0)
        private let opened = Atomic<Bool>(false)

        init(_ base: DatabaseOutboxStore) {
            self.base = base
            DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [self] in open() }
        }

        var commitTakesARoundTrip: Bool { true }

        func open() {
            if !opened.exchange(true, ordering: .sequentiallyConsistent) { gate.signal() }
        }

        func commit(inserting: [OutboxItem], deleting: [UUIDKey]) throws {
            if !inserting.isEmpty && !entered.exchange(true, ordering: .sequentiallyConsistent) { gate.wait() }
            if !inserting.isEmpty { inserted.withLock { $0.append(inserting.count) } }
            try base.commit(inserting: inserting, deleting: deleting)
        }

        func pending() throws -> [OutboxItem] { try base.pending() }
    }

    @Test(arguments: TestDatabase.kinds) func itemsSubmittedDuringACommitAreWrittenTogetherAndSentInOrder(database: TestDatabase) async throws {
        let setup = try HubSetup()
        let store = GatedCommits(try DatabaseOutboxStore(path: database.location("outbox")))
        let outbox = Outbox(transport: try setup.hub.connect(user: "alice"), store: store, clock: setup.clock)
        try await outbox.start()
        let first = Task { await outbox.submit([OutboxInlineRoundTests.message("m0")]) }
        try await withTimeout {
            while !store.entered.load(ordering: .sequentiallyConsistent) { try Task.checkCancellation(); await Task.yield() }
        }
        // m0's commit is held: the outbox still takes the next submits (an outbox committing on
        // its actor would be blocked here until the gate's 60 s fallback). The bound is generous:
        // the whole suite runs beside this on 2 cores.
        var later: [Task<[Result<OutboxResult, ParleyError>], Never>] = []
        for index in 1...5 {
            later.append(Task { await outbox.submit([OutboxInlineRoundTests.message("m\(index)")]) })
            try await withTimeout("m\(index) queued", seconds: 30) {
                while await outbox.queuedCount < index { try Task.checkCancellation(); await Task.yield() }
            }
        }
        store.open()
        _ = try await withTimeout { await first.value }[0].get()
        for task in later { _ = try await withTimeout { await task.value }[0].get() }
        #expect(store.inserted.withLock { $0 } == [1, 5])
        #expect(try OutboxInlineRoundTests.texts(setup.hub) == ["m0", "m1", "m2", "m3", "m4", "m5"])
        await outbox.stop()
        #expect(try store.pending().isEmpty)
    }
}
