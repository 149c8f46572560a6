import Testing
import YAMLCoding
import ParleyBots

/// `audiences:` and `broadcast: audience:` as `parley check` reports them: every error at its
/// file, line and column.
@Suite struct AudienceValidationTests {
    static let schedule = #"""
        schedules:
          - name: morning
            cron: "0 9 * * *"
            broadcast:
              audience: news
              send: { text: "Hi {{recipient.name}}. {{unsubscribe}}" }
        """#

    @Test func aValidAudienceHasNoErrors() {
        let yaml = #"""
            audiences:
              news:
                description: Morning news
                subscribe: [subscribe, start]
                unsubscribe: [stop, unsubscribe]
                on_subscribe: [ { reply: "You're in, {{user.name}}." } ]
                on_unsubscribe: [ { reply: "Done." } ]
            """# + "\n" + Self.schedule
        #expect(BotCheck.errors(yaml) == "")
    }

    @Test(arguments: [
        ValidationCase(name: "unknownAudience", yaml: #"""
            audiences:
              daily: { unsubscribe: [stop] }
            """# + "\n" + AudienceValidationTests.schedule, expected: #"""
            bots/t.yaml:7:17: error: unknown audience 'news': expected one of daily
                  audience: news
                            ^
            """#),
        ValidationCase(name: "unknownKeyInAnAudience", yaml: #"""
            audiences:
              news:
                unsubscribe: [stop]
                on_subscribed: [ { reply: hi } ]
            """# + "\n" + AudienceValidationTests.schedule, expected: #"""
            bots/t.yaml:4:5: error: unknown key 'on_subscribed', did you mean 'on_subscribe'?
                on_subscribed: [ { reply: hi } ]
                ^
            """#),
        ValidationCase(name: "noUnsubscribeWord", yaml: #"""
            audiences:
              news: { subscribe: [join] }
            """# + "\n" + AudienceValidationTests.schedule, expected: #"""
            bots/t.yaml:2:3: error: audience 'news' needs 'unsubscribe' words (like [stop]): a member must always be able to leave
              news: { subscribe: [join] }
              ^
            """#),
        ValidationCase(name: "audienceAndTo", yaml: #"""
            audiences:
              news: { unsubscribe: [stop] }
            schedules:
              - name: morning
                cron: "0 9 * * *"
                broadcast:
                  to: ["user:a"]
                  audience: news
                  send: { text: "Hi" }
            """#, expected: #"""
            bots/t.yaml:8:17: error: a broadcast has both 'audience' and 'to': use one of them
                  audience: news
                            ^
            """#),
        ValidationCase(name: "unsubscribePlaceholderWithoutAudience", yaml: #"""
            schedules:
              - name: morning
                cron: "0 9 * * *"
                broadcast:
                  to: ["user:a"]
                  send: { text: "Hi {{unsubscribe}}" }
            """#, expected: #"""
            bots/t.yaml:6:25: error: '{{unsubscribe}}' is only known in a broadcast to an 'audience' (it names the opt-out word)
                  send: { text: "Hi {{unsubscribe}}" }
                                    ^
            """#),
        ValidationCase(name: "subscribeCommandTakenByACommand", yaml: #"""
            commands:
              start: { reply: hi }
            audiences:
              news: { subscribe: [start], unsubscribe: ["stop now"] }
            """# + "\n" + AudienceValidationTests.schedule, expected: #"""
            bots/t.yaml:4:23: error: subscribe command 'start' of audience 'news' is already a command of the bot
              news: { subscribe: [start], unsubscribe: ["stop now"] }
                                  ^
            bots/t.yaml:4:45: error: invalid unsubscribe word 'stop now': expected one word without spaces
              news: { subscribe: [start], unsubscribe: ["stop now"] }
                                                        ^
            """#),
        ValidationCase(name: "audienceInAnAction", yaml: #"""
            audiences:
              news: { unsubscribe: [stop] }
            commands:
              tell:
                broadcast: { audience: news, send: { text: "Hi" } }
            """#, expected: #"""
            bots/t.yaml:5:28: error: 'audience' is for a schedule's broadcast: a 'broadcast' action sends to 'to' targets
                broadcast: { audience: news, send: { text: "Hi" } }
                                       ^
            """#),
    ])
    func rendersEveryError(_ testCase: ValidationCase) {
        #expect(BotCheck.errors(testCase.yaml) == testCase.expected)
    }
}
