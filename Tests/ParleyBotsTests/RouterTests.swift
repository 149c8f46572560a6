import Foundation
@testable import ParleyBots
import ParleyCore
import Testing

/// The router on its own: a pure function of (bot, state, input, now).
@Suite struct RouterTests {
    static let yaml = """
        id: pure
        commands:
          go:
            goto: loop.a
          start:
            goto: quiz.q
          full:
            goto: names.ask
        triggers:
          - match: "^(a|a)*$"
            reply: "only a"
        flows:
          loop:
            a:
              reply: "a"
              next: b
            b:
              goto: a
          quiz:
            q:
              reply: "Name?"
              ask:
                save: name
                timeout: 1m
                on_timeout: [ { reply: "Bye" } ]
              next: done
            done:
              reply: "Hi {{vars.name}}"
          names:
            ask:
              reply: "Full name?"
              ask:
                match: "^(?<first>\\\\w+) (?<last>\\\\w+)$"
                retry: "First and last, please."
              next: greet
            greet:
              reply: "{{vars.last}}, {{vars.first}} {{vars.last}}."
        fallback:
          - reply: "?"
        """

    let bot: CompiledBot
    let now = Date(timeIntervalSince1970: 1_796_112_000)
    let alice = InboundUser(id: "alice", name: "Alice")

    init() throws { bot = try BotHostTests.compile("pure", Self.yaml) }

    func texts(_ plan: Plan) -> [String] {
        plan.effects.compactMap { if case .send(.text(let text), _, _) = $0 { return text } else { return nil } }
    }

    @Test func sameInputsGiveTheSamePlan() {
        let first = Router.decide(bot: bot, state: ConversationState(), input: .message(text: "/start", from: alice), now: now)
        let second = Router.decide(bot: bot, state: ConversationState(), input: .message(text: "/start", from: alice), now: now)
        #expect(texts(first) == ["Name?"])
        #expect(texts(first) == texts(second))
        #expect(first.state == second.state)
        #expect(first.state.waiting == StepPosition(flow: "quiz", step: "q"))
        #expect(first.state.deadline == now.addingTimeInterval(60))
        #expect(first.route == "command start")
    }

    @Test func anAnswerIsSavedAndTheFlowMovesOn() {
        let waiting = ConversationState(waiting: StepPosition(flow: "quiz", step: "q"), deadline: now.addingTimeInterval(60))
        let plan = Router.decide(bot: bot, state: waiting, input: .message(text: "/go", from: alice), now: now)
        #expect(texts(plan) == ["Hi /go"])
        #expect(plan.state == ConversationState(vars: ["name": "/go"]))
        #expect(plan.route == "ask quiz.q")
    }

    @Test func namedGroupsOfAnAskBecomeVariables() {
        var plan = Router.decide(bot: bot, state: ConversationState(), input: .message(text: "/full", from: alice), now: now)
        #expect(texts(plan) == ["Full name?"])
        plan = Router.decide(bot: bot, state: plan.state, input: .message(text: "Bond", from: alice), now: now)
        #expect(texts(plan) == ["First and last, please."])
        plan = Router.decide(bot: bot, state: plan.state, input: .message(text: "James Bond", from: alice), now: now)
        #expect(texts(plan) == ["Bond, James Bond."])
        #expect(plan.state == ConversationState(vars: ["first": "James", "last": "Bond"]))
    }

    @Test func aStaleTimeoutDoesNothing() {
        let waiting = ConversationState(waiting: StepPosition(flow: "quiz", step: "q"), deadline: now.addingTimeInterval(60))
        let stale = Router.decide(bot: bot, state: waiting, input: .timeout(StepPosition(flow: "quiz", step: "q"), now), now: now)
        #expect(stale.effects.isEmpty)
        #expect(stale.state == waiting)
        let due = Router.decide(bot: bot, state: waiting, input: .timeout(StepPosition(flow: "quiz", step: "q"), now.addingTimeInterval(60)), now: now)
        #expect(texts(due) == ["Bye"])
        #expect(due.state == ConversationState())
    }

    @Test func aFlowThatNeverWaitsIsCutShort() {
        let plan = Router.decide(bot: bot, state: ConversationState(), input: .message(text: "/go", from: alice), now: now)
        #expect(texts(plan).count == Planner.maxSteps / 2)
        #expect(plan.effects.contains { if case .log(.warn, let message, _) = $0 { message.hasPrefix("flow stopped") } else { false } })
        #expect(plan.state.waiting == nil)
    }

    @Test func aRegexOverItsLimitsIsNoMatchAndLogged() {
        let plan = Router.decide(bot: bot, state: ConversationState(), input: .message(text: String(repeating: "a", count: 40) + "b", from: alice), now: now)
        #expect(texts(plan) == ["?"])
        #expect(plan.effects.contains { if case .log(.warn, "regex gave up on a message", _) = $0 { true } else { false } })
    }
}
