import Foundation

/// Tests that block threads of the cooperative pool on purpose (to show that a lease is still
/// renewed, or that idle is not fooled, while they are blocked) run in a `swift test` of their
/// own (`PARLEY_POOL_BLOCKING_TESTS=1 swift test --filter PoolBlocking`, see scripts/test):
/// in the main run they would stall every other test's timing for seconds.
public enum PoolBlockingTests {
    /// True in that run.
    public static var enabled: Bool { ProcessInfo.processInfo.environment["PARLEY_POOL_BLOCKING_TESTS"] == "1" }
}
