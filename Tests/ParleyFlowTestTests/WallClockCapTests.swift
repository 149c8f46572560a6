import Testing
@testable import ParleyFlowTest

@Suite struct WallClockCapTests {
    @Test func returnsTheWorkResult() async {
        let value = await WallClockCap.run(limit: .seconds(30)) { 42 }
        #expect(value == 42)
    }

    /// Work that never ends (and ignores cancellation) still gives the caller an answer at the cap.
    @Test func givesUpOnWorkThatNeverEnds() async {
        let value: Int? = await WallClockCap.run(limit: .milliseconds(50)) {
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            return 1
        }
        #expect(value == nil)
    }
}
