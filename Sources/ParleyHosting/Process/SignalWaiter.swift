import Dispatch
import Foundation
import Synchronization

/// Waits for SIGINT or SIGTERM (the default handlers are replaced while it exists, so the
/// process shuts down cleanly instead of dying).
// @unchecked: the Dispatch sources are set once in init and only cancelled in deinit;
// Dispatch sources are thread-safe, they just are not annotated.
final class SignalWaiter: @unchecked Sendable {
    private struct State {
        var fired = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let sources: [any DispatchSourceSignal]

    init() {
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            sources.append(source)
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [weak self] in self?.fire() }
            source.resume()
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }

    /// Ends every wait (a signal came, or the caller is done).
    func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Ends waits without a signal.
    func cancel() { fire() }

    /// Returns after SIGINT or SIGTERM (or `cancel()`).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.fired { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
