import Foundation
import Testing
import ParleyCLI
@testable import ParleyFlowTest

@Suite struct TestCommandTests {
    func run(_ arguments: [String]) async -> (status: Int32, output: CapturedOutput) {
        let output = CapturedOutput()
        let status = await ParleyCommand.main(["test"] + arguments,
                                              context: CommandContext(output: output, environment: [:], currentDirectory: FlowTestHarness.fixtures))
        return (status, output)
    }

    @Test func invalidTestFileFailsWithPositionedErrors() async throws {
        let harness = try FlowTestHarness()
        defer { harness.remove() }
        let file = try harness.write("bot: nobody\ntests:\n  - name: t\n    steps:\n      - send: hi\n", as: "bad.test.yaml")
        let (status, output) = await run([file.path])
        #expect(status == 1)
        #expect(output.standardOutput.contains("FAIL  \(file.path) (cannot run: 1 error)"))
        #expect(output.standardOutput.contains("\(file.path):1:6: error: unknown bot 'nobody': expected one of the host's bots (helper, ticker)"))
        #expect(output.standardOutput.hasSuffix("0 passed, 1 failed\n"))
    }

    @Test func junitFileIsWritten() async throws {
        let harness = try FlowTestHarness()
        defer { harness.remove() }
        let junit = harness.folder.appendingPathComponent("report.xml").path
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
        let harness = try FlowTestHarness()
        defer { harness.remove() }
        let file = try harness.write(FlowTestHarness.file(steps: ["- send: /ping", "- expect: { text: nope }"]))
        let (status, output) = await run([file.path])
        #expect(status == 1)
        #expect(output.standardOutput.hasPrefix("FAIL  \(file.path): case\n"))
        #expect(output.standardOutput.hasSuffix("0 passed, 1 failed\n"))
    }
}
