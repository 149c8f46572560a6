import Testing
import YAMLCoding
import ParleyBots

extension BotValidationErrorTests {
    /// Misspelled keys next to keys of the same mapping: the keys a mapping lacks are skipped
    /// while decoding, yet must still be offered as suggestions.
    static let keySuggestionCases: [ValidationCase] = [
        ValidationCase(name: "misspelledActionModifiers", yaml: #"""
            commands:
              help:
                reply: hi
                qoute: true
                descripton: Help
            triggers:
              - contians: hi
                reply: hello
            flows:
              order:
                start:
                  do:
                    - reply: a
                      qoute: true
                  nxt: start
            """#, expected: #"""
            bots/t.yaml:4:5: error: unknown key 'qoute', did you mean 'quote'?
                qoute: true
                ^
            bots/t.yaml:5:5: error: unknown key 'descripton', did you mean 'description'?
                descripton: Help
                ^
            bots/t.yaml:7:5: error: unknown key 'contians', did you mean 'contains'?
              - contians: hi
                ^
            bots/t.yaml:14:11: error: unknown key 'qoute', did you mean 'quote'?
                      qoute: true
                      ^
            bots/t.yaml:15:7: error: unknown key 'nxt', did you mean 'next'?
                  nxt: start
                  ^
            """#),
        // A command's own keys and its action keys are found in one pass: the ones it lacks
        // are still suggested, in the order they were always asked about.
        ValidationCase(name: "misspelledCommandKeys", yaml: #"""
            commands:
              help:
                arg: [a]
                alias: [h]
                d: [ { reply: x } ]
                rply: hi
              card:
                send: { txt: hi, card: link, url: "https://example.com" }
                qote: true
            """#, expected: #"""
            bots/t.yaml:3:5: error: unknown key 'arg', did you mean 'args'?
                arg: [a]
                ^
            bots/t.yaml:4:5: error: unknown key 'alias', did you mean 'aliases'?
                alias: [h]
                ^
            bots/t.yaml:5:5: error: unknown key 'd'
                d: [ { reply: x } ]
                ^
            bots/t.yaml:6:5: error: unknown key 'rply', did you mean 'reply'?
                rply: hi
                ^
            bots/t.yaml:9:5: error: unknown key 'qote', did you mean 'quote'?
                qote: true
                ^
            """#),
    ]
}
