import ParleyCore

/// The client's event handler for a runtime: hands each batch to `BotRuntime.dispatch(_:)`.
/// A method, not a closure: a closure literal cannot be `nonisolated(nonsending)` itself,
/// and one converted to that type still hops to the generic executor and back per batch.
/// The runtime is held weakly (the client holds the handler; the runtime holds the client).
final class EventForwarder: Sendable {
    private weak let runtime: BotRuntime?

    init(_ runtime: BotRuntime) { self.runtime = runtime }

    /// Runs on the receiving task's executor, the client's: one hop, onto the runtime.
    nonisolated(nonsending) func forward(_ batch: [ChatEvent]) async {
        await runtime?.dispatch(batch)
    }
}
