import Foundation
import ParleyStore
import ParleyTesting
import Synchronization
import Testing
@testable import ParleyBots

/// On SQLite a conversation's state is read beside the file's writer (a WAL reader), so a
/// read does not wait for a commit; while a handled message's write of that conversation is
/// still queued, the read goes through the writer, after it, and sees it.
@Suite struct BotStoreReadersTests {
    /// A call on a thread of its own, whose result is awaited for a bounded time: a call that
    /// wrongly waits for the held writer fails the test instead of hanging it.
    final class ThreadCall<T: Sendable>: Sendable {
        private let result = Mutex<Result<T, any Error>?>(nil)
        private let finished = DispatchSemaphore(value: 0)

        init(_ body: @escaping @Sendable () throws -> T) {
            Thread { [self] in
                let outcome = Result { try body() }
                result.withLock { $0 = outcome }
                finished.signal()
            }.start()
        }

        var isFinished: Bool { result.withLock { $0 != nil } }

        /// The result, or nil if the call did not finish within `seconds`.
        func value(within seconds: Double) throws -> T? {
            guard finished.wait(timeout: .now() + seconds) == .success else { return nil }
            finished.signal()
            return try result.withLock { $0 }?.get()
        }
    }

    @Test func aStateIsReadBesideABusyWriterAndAQueuedSaveIsSeenOnceCommitted() async throws {
        let path = TestDatabase.sqlite.location("readers")
        let store = try DatabaseBotStore(path: path)
        let writer = try StoreWriter.shared(path: path)
        let asked = ConversationState(vars: ["step": "asked"])
        let answered = ConversationState(vars: ["step": "done"])
        try store.save(asked, bot: "desk", channel: "user:alice", handled: nil)

        let gate = WriterGate()
        gate.hold(writer)
        defer { gate.release() }
        // Nothing of the conversation is queued: it is read at once, beside the held writer.
        let beside = ThreadCall { try store.state(bot: "desk", channel: "user:alice") }
        #expect(try beside.value(within: 10) == asked, "the read waited for the writer")

        // A handled message's write goes behind (the call returns while the writer is held);
        // the next read of that conversation waits in the writer's queue behind it.
        try store.save(answered, bot: "desk", channel: "user:alice", handled: "m1")
        let after = ThreadCall { try store.state(bot: "desk", channel: "user:alice") }
        // Bounded: the read either queued behind the save (two waiting) or, wrongly, finished.
        for _ in 0..<1_000 where writer.waiting < 2 && !after.isFinished { usleep(1_000) }
        #expect(!after.isFinished, "the read did not wait for the conversation's queued write")
        gate.release()
        #expect(try after.value(within: 10) == answered)
        // Committed: read beside the writer again, and the same.
        #expect(try store.state(bot: "desk", channel: "user:alice") == answered)
    }
}
