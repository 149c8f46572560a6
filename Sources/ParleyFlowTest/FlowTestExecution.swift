import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Synchronization

/// Runs one test: a fresh stage (hub) and clock, the bot started on a recording transport, then the
/// steps in order. Never hangs: the steps are bounded and the whole test has a wall-clock cap.
struct FlowTestExecution: Sendable {
    let plan: FlowTestPlan
    let test: FlowTestCase

    /// A step's problem: one line per expected/actual item.
    struct StepFailure: Error {
        var details: [String]
        init(_ details: [String]) { self.details = details }
        init(_ detail: String) { details = [detail] }
    }

    /// Runs the test; `watchdog` times its wall-clock cap.
    func run(watchdog: WallClockWatchdog) async -> FlowTestResult {
        let began = ContinuousClock.now
        let recorder = OutputRecorder(userID: plan.file.userID)
        let progress = StepProgress()
        let status: FlowTestStatus
        if test.steps.count > plan.limits.maxSteps {
            status = .failed(failure(at: nil, recorder: recorder, [
                "the test has \(test.steps.count) steps, more than the budget of \(plan.limits.maxSteps)"]))
        } else if let finished = await WallClockCap.run(limit: plan.limits.wallClock, watchdog: watchdog, { [self] in
            await runSteps(recorder: recorder, progress: progress)
        }) {
            status = finished
        } else {
            let index = progress.index.load(ordering: .relaxed)
            status = .failed(failure(at: index >= 0 ? index : nil, recorder: recorder, [
                "the test took longer than its wall-clock cap of \(plan.limits.wallClock) (the bot never became idle?)"]))
        }
        let steps = max(0, progress.index.load(ordering: .relaxed) + 1)
        return FlowTestResult(name: test.name.value, status: status, steps: steps,
                              seconds: (ContinuousClock.now - began).timeInterval)
    }

    private func runSteps(recorder: OutputRecorder, progress: StepProgress) async -> FlowTestStatus {
        let clock = FlowTestClock(start: plan.start)
        let session: any FlowTestBotSession
        let steps: FlowTestSteps
        let scene: FlowTestScene
        do {
            scene = try await plan.stage.prepare(FlowTestStageRequest(userID: plan.file.userID, botID: plan.bot.id,
                                                                      users: plan.cast.users, groups: plan.cast.groups,
                                                                      members: plan.cast.members, speakers: plan.cast.speakers,
                                                                      clock: clock, recorder: recorder))
        } catch {
            return .failed(failure(at: nil, recorder: recorder, ["the test could not start: \(error)"]))
        }
        do {
            let transport = RecordingTransport(base: scene.botTransport, recorder: recorder, clock: clock)
            let environment = FlowTestEnvironment(bot: plan.bot, hub: scene.hub, clock: clock, transport: transport,
                                                  profiles: plan.profiles, userID: plan.file.userID,
                                                  deliveredEventCount: scene.deliveredEventCount,
                                                  log: { [clock] line in recorder.recordLog(line, at: clock.now()) },
                                                  settle: scene.settle)
            session = try await plan.host.start(environment)
            steps = FlowTestSteps(plan: plan, clock: clock, recorder: recorder, session: session, user: scene.user,
                                  connect: scene.connect)
        } catch {
            await scene.close()
            return .failed(failure(at: nil, recorder: recorder, ["the test could not start: \(error)"]))
        }
        var status = FlowTestStatus.passed
        for (index, step) in test.steps.enumerated() {
            progress.index.store(index, ordering: .relaxed)
            do {
                try Task.checkCancellation()
                try await steps.perform(step)
            } catch let stepFailure as StepFailure {
                status = .failed(failure(at: index, recorder: recorder, stepFailure.details))
                break
            } catch {
                status = .failed(failure(at: index, recorder: recorder, ["the step failed: \(error)"]))
                break
            }
        }
        await session.stop()
        await scene.close()
        return status
    }

    private func failure(at index: Int?, recorder: OutputRecorder, _ details: [String]) -> FlowTestFailure {
        let step = index.map { test.steps[$0] }
        let mark = step?.mark ?? test.name.mark
        let transcript = TranscriptRenderer(recorder: recorder, botID: plan.bot.id, start: plan.start).lines()
        return FlowTestFailure(file: plan.displayPath, line: mark.line, column: mark.column, test: test.name.value,
                               step: step.map(Self.describe) ?? "setup", details: details, transcript: transcript)
    }

    /// A step in one line, as written.
    static func describe(_ step: FlowTestStep) -> String {
        switch step.kind {
        case .send(let text, let channel, let speaker)?:
            "send: \(ExpectationMatcher.quoted(text.value))" + (channel.map { " in \($0.value)" } ?? "")
                + (speaker.map { " as \($0.value)" } ?? "")
        case .expect(let expectation)?:
            "expect: " + ExpectationMatcher.describe(expectation)
        case .advance(let duration)?:
            "advance: \(duration.value)"
        case nil:
            "an invalid step"
        }
    }
}
