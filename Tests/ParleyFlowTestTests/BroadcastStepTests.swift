import Foundation
@testable import ParleyFlowTest
import ParleyTesting
import Testing
import YAMLCoding

/// `pause_broadcast` and `resume_broadcasts` as `parley check` reads them (the steps at work
/// are in bots/announcer.test.yaml: a STOP while the news job is paused halfway).
@Suite struct BroadcastStepTests {
    @Test func aScheduleTheBotLacksAndResumeFalseAreErrors() throws {
        let yaml = FlowHostFile.text(steps: ["- pause_broadcast: { schedule: nightly, after: 1 }", "- resume_broadcasts: false"])
        let file = try YAMLDecoder(environment: [:]).decode(TestFile.self, from: yaml, file: "t.test.yaml")
        let errors = TestFileValidator.validate(file, source: SourceFile(name: "t.test.yaml", text: yaml), bots: try TestFileHarness().bots)
        #expect(errors.map { $0.description.prefix { $0 != "\n" } } == [
            "t.test.yaml:9:38: error: bot 'helper' has no broadcast schedule 'nightly'",
            "t.test.yaml:10:28: error: 'resume_broadcasts: false' means nothing: write 'resume_broadcasts: true' or leave the step out",
        ])
    }

    @Test func anUnknownKeyOfThePauseIsAnError() throws {
        let yaml = FlowHostFile.text(steps: ["- pause_broadcast: { schedule: nightly, afer: 1 }"])
        #expect(throws: (any Error).self) { try YAMLDecoder(environment: [:]).decode(TestFile.self, from: yaml, file: "t.test.yaml") }
    }
}
