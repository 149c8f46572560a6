import Testing
import YAMLCoding
import ParleyBots

/// One case per error kind of bot validation: the bot text and the whole rendered output.
struct ValidationCase: Sendable, CustomStringConvertible {
    let name: String
    let yaml: String
    let expected: String
    var description: String { name }
}

@Suite struct BotValidationErrorTests {
    @Test(arguments: BotValidationErrorTests.valueCases + BotValidationErrorTests.structureCases
                    + BotValidationErrorTests.keySuggestionCases)
    func rendersEveryError(_ testCase: ValidationCase) {
        #expect(BotCheck.errors(testCase.yaml) == testCase.expected)
    }

    /// Template variables, regexes, cron, time zones, durations, rates.
    static let valueCases: [ValidationCase] = [
        ValidationCase(name: "unknownKeyWithSuggestion", yaml: #"""
            name: A
            comands:
              help: { reply: hi }
            """#, expected: #"""
            bots/t.yaml:2:1: error: unknown key 'comands', did you mean 'commands'?
            comands:
            ^
            """#),
        ValidationCase(name: "unknownUserVariable", yaml: #"""
            commands:
              help:
                reply: "Hi {{user.nam}}"
            """#, expected: #"""
            bots/t.yaml:3:16: error: unknown template variable '{{user.nam}}': expected one of bot.id, bot.name, help, user.id, user.name, message.text
                reply: "Hi {{user.nam}}"
                           ^
            """#),
        ValidationCase(name: "argsOfAnotherCommand", yaml: #"""
            commands:
              card:
                args: [user]
                send: { card: vcard, user: "{{args.usr}}" }
              help:
                reply: "{{args.user}}"
            """#, expected: #"""
            bots/t.yaml:4:32: error: unknown template variable '{{args.usr}}': command 'card' has args user
                send: { card: vcard, user: "{{args.usr}}" }
                                           ^
            bots/t.yaml:6:12: error: unknown template variable '{{args.user}}': command 'help' has no args
                reply: "{{args.user}}"
                       ^
            """#),
        ValidationCase(name: "unknownNamedGroup", yaml: #"""
            triggers:
              - match: "order (?<number>[0-9]+)"
                reply: "Order {{match.num}}"
              - contains: "hi"
                reply: "{{match.number}}"
            """#, expected: #"""
            bots/t.yaml:3:19: error: unknown template variable '{{match.num}}': the regex of trigger 1 has named groups number
                reply: "Order {{match.num}}"
                              ^
            bots/t.yaml:5:12: error: '{{match.number}}' is only known in a trigger with a 'match' regex
                reply: "{{match.number}}"
                       ^
            """#),
        ValidationCase(name: "unknownVariable", yaml: #"""
            commands:
              status:
                reply: "Your order: {{vars.order}}"
            """#, expected: #"""
            bots/t.yaml:3:25: error: unknown template variable '{{vars.order}}': no 'save', 'set' or named group in this bot sets 'order'
                reply: "Your order: {{vars.order}}"
                                    ^
            """#),
        ValidationCase(name: "recipientOutsideBroadcast", yaml: #"""
            commands:
              hi:
                reply: "Hi {{recipient.name}}"
            """#, expected: #"""
            bots/t.yaml:3:16: error: '{{recipient.name}}' is only known inside a broadcast's 'send'
                reply: "Hi {{recipient.name}}"
                           ^
            """#),
        ValidationCase(name: "userInSchedule", yaml: #"""
            schedules:
              - name: nightly
                cron: "@daily"
                broadcast:
                  to: ["group:ops"]
                  send: { text: "Hi {{user.name}}" }
            """#, expected: #"""
            bots/t.yaml:6:25: error: '{{user.name}}' has no user or message here (schedule 'nightly' runs on a schedule)
                  send: { text: "Hi {{user.name}}" }
                                    ^
            """#),
        ValidationCase(name: "regexCompileErrorColumn", yaml: #"""
            triggers:
              - match: "(?i)\\b(thanks"
                react: "❤️"
              - match: 'a{2,1}'
                react: "❤️"
            """#, expected: #"""
            bots/t.yaml:2:27: error: invalid regex: missing closing parenthesis
              - match: "(?i)\\b(thanks"
                                      ^
            bots/t.yaml:4:18: error: invalid regex: numbers out of order in {} quantifier
              - match: 'a{2,1}'
                             ^
            """#),
        ValidationCase(name: "cronErrors", yaml: #"""
            schedules:
              - name: a
                cron: "0 24 * * *"
                broadcast: { to: ["group:ops"], send: { text: x } }
              - name: b
                cron: "*/5 * * * MON-FRY"
                broadcast: { to: ["group:ops"], send: { text: x } }
              - name: c
                cron: "0 9 * *"
                broadcast: { to: ["group:ops"], send: { text: x } }
            """#, expected: #"""
            bots/t.yaml:3:14: error: invalid hour '24' in cron expression: out of range 0-23
                cron: "0 24 * * *"
                         ^
            bots/t.yaml:6:22: error: invalid day of week 'MON-FRY' in cron expression: expected a number 0-7 (0 and 7 are Sunday) or a name SUN-SAT, '*', a list 'a,b', a range 'a-b' or a step '*/n'
                cron: "*/5 * * * MON-FRY"
                                 ^
            bots/t.yaml:9:11: error: invalid cron expression '0 9 * *': expected 5 fields (minute hour day-of-month month day-of-week), found 4
                cron: "0 9 * *"
                      ^
            """#),
        // Never firing is an error at the cron; February 29 fires (leap years), and with both
        // day fields restricted either matching is enough (any Monday in February).
        ValidationCase(name: "cronNeverFires", yaml: #"""
            schedules:
              - name: a
                cron: "0 0 30 2 *"
                broadcast: { to: ["group:ops"], send: { text: x } }
              - name: b
                cron: 0 0 31 4,JUN,9 */2
                broadcast: { to: ["group:ops"], send: { text: x } }
              - name: c
                cron: "0 12 29 2 *"
                broadcast: { to: ["group:ops"], send: { text: x } }
              - name: d
                cron: "0 0 30 2 MON"
                broadcast: { to: ["group:ops"], send: { text: x } }
              - name: e
                cron: "0 0 30,31 FEB *"
                broadcast: { to: ["group:ops"], send: { text: x } }
            """#, expected: #"""
            bots/t.yaml:3:11: error: cron '0 0 30 2 *' never fires: February has no 30th
                cron: "0 0 30 2 *"
                      ^
            bots/t.yaml:6:11: error: cron '0 0 31 4,JUN,9 */2' never fires: April, June and September have no 31st
                cron: 0 0 31 4,JUN,9 */2
                      ^
            bots/t.yaml:15:11: error: cron '0 0 30,31 FEB *' never fires: February has no 30th or 31st
                cron: "0 0 30,31 FEB *"
                      ^
            """#),
        ValidationCase(name: "timeZoneAndCatchUp", yaml: #"""
            schedules:
              - name: a
                cron: "0 9 * * 1-5"
                timezone: Europe/Berlinn
                catch_up: always
                broadcast: { to: ["group:ops"], send: { text: x } }
            """#, expected: #"""
            bots/t.yaml:4:15: error: unknown time zone 'Europe/Berlinn': expected an IANA name like Europe/Berlin, America/New_York or UTC
                timezone: Europe/Berlinn
                          ^
            bots/t.yaml:5:15: error: invalid catch_up 'always': expected none or once
                catch_up: always
                          ^
            """#),
        ValidationCase(name: "catchUpWindowWithoutCatchUp", yaml: #"""
            schedules:
              - name: a
                cron: "0 9 * * 1-5"
                catch_up: none
                catch_up_window: 2h
                broadcast: { to: ["group:ops"], send: { text: x } }
              - name: b
                cron: "0 9 * * 1-5"
                catch_up_window: 2h
                broadcast: { to: ["group:ops"], send: { text: x } }
            """#, expected: #"""
            bots/t.yaml:5:22: error: 'catch_up_window' has no effect with 'catch_up: none': remove it or use 'catch_up: once'
                catch_up_window: 2h
                                 ^
            """#),
        ValidationCase(name: "durationsAndRates", yaml: #"""
            commands:
              slow:
                do:
                  - wait: 5w
                  - broadcast: { to: ["user:a"], send: { text: x }, rate: 20/d }
            flows:
              f:
                s:
                  ask: { save: x, timeout: 10 minutes }
            """#, expected: #"""
            bots/t.yaml:4:16: error: invalid duration '5w': unknown unit 'w'; expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d
                  - wait: 5w
                           ^
            bots/t.yaml:5:66: error: invalid rate '20/d': unknown unit 'd'; expected COUNT/UNIT with a unit of s, m or h, like 20/s or 600/m
                  - broadcast: { to: ["user:a"], send: { text: x }, rate: 20/d }
                                                                             ^
            bots/t.yaml:9:34: error: invalid duration '10 minutes': unexpected ' '; expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d
                  ask: { save: x, timeout: 10 minutes }
                                             ^
            """#),
        ValidationCase(name: "positionsInsideScalars", yaml: #"""
            commands:
              a:
                reply: "Caf\u00e9 \"{{user.nam}}\""
              b:
                reply: 'It''s {{user.nm}}'
              d:
                reply: |
                  Block {{user.x}}

                    indented {{args.y}}
                  end
              e:
                reply: >
                  Folded {{user.z}}
            """#, expected: #"""
            bots/t.yaml:3:25: error: unknown template variable '{{user.nam}}': expected one of bot.id, bot.name, help, user.id, user.name, message.text
                reply: "Caf\u00e9 \"{{user.nam}}\""
                                    ^
            bots/t.yaml:5:19: error: unknown template variable '{{user.nm}}': expected one of bot.id, bot.name, help, user.id, user.name, message.text
                reply: 'It''s {{user.nm}}'
                              ^
            bots/t.yaml:8:13: error: unknown template variable '{{user.x}}': expected one of bot.id, bot.name, help, user.id, user.name, message.text
                  Block {{user.x}}
                        ^
            bots/t.yaml:10:18: error: unknown template variable '{{args.y}}': command 'd' has no args
                    indented {{args.y}}
                             ^
            bots/t.yaml:13:12: error: unknown template variable '{{user.z}}': expected one of bot.id, bot.name, help, user.id, user.name, message.text
                reply: >
                       ^
            """#),
    ]
}
