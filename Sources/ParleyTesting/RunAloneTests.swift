import Foundation

/// Tests that need the test process to themselves run in a `swift test` of their own
/// (`PARLEY_RUN_ALONE_TESTS=1 swift test --filter RunAloneTests`, see scripts/test); their
/// suites' names end in `RunAloneTests`. Two kinds: tests that block threads of the cooperative
/// pool on purpose (to show that a lease is still renewed, or that idle is not fooled, while
/// they are blocked), which in the main run would stall every other test's timing for seconds;
/// and tests that measure the process's CPU time, which in the main run counts every other
/// test's work too (a quiet stream's 0.5 s bound failed three fresh-clone runs in a row at
/// 0.63–0.78 s while the store tests ran beside it).
public enum RunAloneTests {
    /// True in that run.
    public static var enabled: Bool { ProcessInfo.processInfo.environment["PARLEY_RUN_ALONE_TESTS"] == "1" }
}
