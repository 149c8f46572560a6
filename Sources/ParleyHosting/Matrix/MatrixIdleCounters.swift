import Synchronization

/// The two counts behind a Matrix test's exact idle.
final class MatrixIdleCounters: Sendable {
    /// Events the bot's connection relayed that were not the test user's messages.
    let otherEvents = Atomic<Int>(0)
    /// Messages the test user sent (each is one event the bot will receive).
    let userMessages = Atomic<Int>(0)
}
