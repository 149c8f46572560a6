import Foundation
import ParleyTesting
import Testing

/// `withTimeout` bounds a wait even when what it waits on ignores cancellation: that is the
/// kind of bug it exists to report, and a bound that waited for it would hang the run instead.
@Suite struct TimeoutTests {
    @Test func aBodyThatIgnoresCancellationStillTimesOut() async throws {
        let parked = Locked<CheckedContinuation<Void, Never>?>(nil)
        let started = ContinuousClock.now
        await #expect(throws: TimeoutError.self) {
            try await withTimeout("a continuation nobody resumes", seconds: 0.2) {
                await withCheckedContinuation { continuation in parked.mutate { $0 = continuation } }
            }
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        // Let the abandoned body end, so the test leaves no task behind.
        parked.mutate { $0.take() }?.resume()
    }

    @Test func aBodyThatFinishesReturnsItsValueOrItsError() async throws {
        #expect(try await withTimeout(seconds: 10) { 42 } == 42)
        struct Failure: Error {}
        await #expect(throws: Failure.self) { try await withTimeout(seconds: 10) { () async throws -> Int in throw Failure() } }
    }

    @Test func aCancelledCallerStopsWaiting() async throws {
        let waiter = Task {
            try await withTimeout(seconds: 60) { try await Task.sleep(for: .seconds(60)) }
        }
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
