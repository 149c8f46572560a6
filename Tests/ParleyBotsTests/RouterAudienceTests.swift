import Foundation
@testable import ParleyBots
import ParleyCore
import Testing

/// Audiences' words in the router: an unsubscribe word works whatever the conversation is
/// doing (even a flow waiting on an `ask`), in any case, with or without the prefix; a
/// subscribe command opts in; other text is left to the bot.
@Suite struct RouterAudienceTests {
    static let yaml = """
        id: news
        prefix: "!"
        commands:
          start: { goto: quiz.q }
        flows:
          quiz:
            q:
              reply: "Name?"
              ask: { save: name }
              next: done
            done:
              reply: "Hi {{vars.name}}"
        audiences:
          daily:
            subscribe: [join]
            unsubscribe: [stop, quit]
            on_subscribe: [ { reply: "In, {{user.name}}." } ]
            on_unsubscribe: [ { reply: "Out." } ]
          weekly:
            unsubscribe: [stop]
        """

    let bot: CompiledBot
    let now = Date(timeIntervalSince1970: 1_796_112_000)
    let alice = InboundUser(id: "alice", name: "Alice")

    init() throws { bot = try BotHostTests.compile("news", Self.yaml) }

    func decide(_ text: String, _ state: ConversationState = ConversationState()) -> Plan {
        Router.decide(bot: bot, state: state, input: .message(text: text, from: alice), now: now)
    }

    @Test(arguments: ["stop", "STOP", "Stop", "!stop", "!STOP", "  stop\n"])
    func anUnsubscribeWordLeavesEveryAudienceThatHasIt(_ text: String) {
        let plan = decide(text)
        #expect(plan.effects == [.audience("daily", user: "alice", subscribed: false), .audience("weekly", user: "alice", subscribed: false),
                                 .send(.text("Out."), to: nil, quote: false)])
        #expect(plan.route == "unsubscribe daily,weekly")
    }

    @Test func anUnsubscribeWordWinsOverAWaitingAsk() {
        let waiting = decide("!start").state
        #expect(waiting.waiting == StepPosition(flow: "quiz", step: "q"))
        let plan = decide("QUIT", waiting)
        #expect(plan.effects == [.audience("daily", user: "alice", subscribed: false), .send(.text("Out."), to: nil, quote: false)])
        // The flow still waits: the opt-out was not its answer.
        #expect(plan.state.waiting == StepPosition(flow: "quiz", step: "q"))
    }

    @Test func aSubscribeCommandNeedsThePrefix() {
        let plan = decide("!join")
        #expect(plan.effects == [.audience("daily", user: "alice", subscribed: true), .send(.text("In, Alice."), to: nil, quote: false)])
        #expect(plan.route == "subscribe daily")
        #expect(decide("join").effects.allSatisfy { if case .audience = $0 { false } else { true } })
        #expect(decide("please stop that").effects.allSatisfy { if case .audience = $0 { false } else { true } })
    }
}
