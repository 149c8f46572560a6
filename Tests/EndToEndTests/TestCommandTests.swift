import Foundation
import ParleyTesting
import Testing
import ParleyCLI
@testable import ParleyFlowTest

@Suite struct TestCommandTests {
    func run(_ arguments: [String]) async -> (status: Int32, output: CapturedOutput) {
        let output = CapturedOutput()
        let status = await ParleyCommand.main(["test"] + arguments,
                                              context: CommandContext(output: output, environment: [:], currentDirectory: TestFixtures.flowHost))
        return (status, output)
    }

    /// The fixture's own test file covers every expectation kind passing, `advance` firing a
    /// `wait` and a flow timeout, `none`, groups and other users' channels.
    @Test func fixtureFilePassesThroughTheCLI() async {
        let (status, output) = await run([])
        #expect(output.standardOutput == """
            ok    bots/helper.test.yaml: text contains matches
            ok    bots/helper.test.yaml: cards and fields
            ok    bots/helper.test.yaml: reaction and quote
            ok    bots/helper.test.yaml: other channels
            ok    bots/helper.test.yaml: speaking in a group
            ok    bots/helper.test.yaml: wait fires under advance
            ok    bots/helper.test.yaml: flow answered in time
            ok    bots/helper.test.yaml: flow timeout under advance
            ok    bots/helper.test.yaml: timers fire in time order
            9 passed, 0 failed

            """)
        #expect(output.standardError == "")
        #expect(status == 0)
    }

    @Test func invalidTestFileFailsWithPositionedErrors() async throws {
        let folder = try TemporaryFolder("flowtest")
        defer { folder.remove() }
        let file = try folder.write("bot: nobody\ntests:\n  - name: t\n    steps:\n      - send: hi\n", as: "bad.test.yaml")
        let (status, output) = await run([file])
        #expect(status == 1)
        #expect(output.standardOutput.contains("FAIL  \(file) (cannot run: 1 error)"))
        #expect(output.standardOutput.contains("\(file):1:6: error: unknown bot 'nobody': expected one of the host's bots (helper, ticker)"))
        #expect(output.standardOutput.hasSuffix("0 passed, 1 failed\n"))
    }

    @Test func junitFileIsWritten() async throws {
        let folder = try TemporaryFolder("flowtest")
        defer { folder.remove() }
        let junit = folder.url.appendingPathComponent("report.xml").path
        let (status, _) = await run(["--junit", junit, "--filter", "cards", "bots"])
        #expect(status == 0)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<testsuites name=\"parley test\" tests=\"9\" failures=\"0\" errors=\"0\" skipped=\"8\""))
        #expect(xml.contains("<testcase classname=\"bots/helper.test.yaml\" name=\"cards and fields\""))
    }

    @Test(arguments: [["--jobs", "0"], ["--jobs", "two"], ["--junit="], ["--bogus"]])
    func usageErrors(_ arguments: [String]) async {
        let (status, output) = await run(arguments)
        #expect(status == ParleyCommand.usageExitCode)
        #expect(output.standardError.hasPrefix("error: "))
        #expect(output.standardError.contains("usage: parley test"))
    }

    @Test func missingPathIsAnError() async {
        let (status, output) = await run(["nowhere"])
        #expect(status == 1)
        #expect(output.standardError == "error: nowhere: no such file or folder\n")
    }

    @Test func failingRunExitsOne() async throws {
        let folder = try TemporaryFolder("flowtest")
        defer { folder.remove() }
        let file = try folder.write(FlowHostFile.text(steps: ["- send: /ping", "- expect: { text: nope }"]), as: "case.test.yaml")
        let (status, output) = await run([file])
        #expect(status == 1)
        #expect(output.standardOutput.hasPrefix("FAIL  \(file): case\n"))
        #expect(output.standardOutput.hasSuffix("0 passed, 1 failed\n"))
    }
}
