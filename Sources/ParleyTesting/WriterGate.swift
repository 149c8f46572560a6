import Foundation
import ParleyStore

/// Holds a store's writer on a job until `release()`: what is queued meanwhile waits, and
/// then commits as one batch. Bounded: the job lets go after 10 s on its own, so a test that
/// fails before releasing does not hold the writer for ever.
public final class WriterGate: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    public init() {}

    /// Queues the holding job on `writer` and returns once the writer runs it.
    public func hold(_ writer: StoreWriter) {
        writer.submit({ _ in
            self.entered.signal()
            _ = self.released.wait(timeout: .now() + 10)
        }, done: { _ in })
        _ = entered.wait(timeout: .now() + 10)
    }

    public func release() { released.signal() }
}
