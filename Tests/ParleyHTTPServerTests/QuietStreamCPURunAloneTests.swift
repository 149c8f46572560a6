import ParleyTesting
import Testing

/// A quiet stream costs no CPU: its connection is suspended, not polled. Process CPU time counts
/// every test running beside it, so this runs alone (`RunAloneTests`).
@Suite(.enabled(if: RunAloneTests.enabled, "measures the process's CPU: run with PARLEY_RUN_ALONE_TESTS=1 --filter RunAloneTests"))
struct QuietStreamCPURunAloneTests {
    @Test func aQuietStreamCostsNoCPU() async throws {
        let cpu = try await HTTPServerSuites.HTTPServerStreamTests.quietStream()
        // A reader polled while it had nothing to give would spin a core all along: 2.5 s.
        #expect(cpu < 0.5, "the process used \(cpu) s of CPU while the stream was quiet")
    }
}
