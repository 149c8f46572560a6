import Foundation
import Testing
import YAMLCoding
import ParleyBots
import ParleyFlowTest

@Suite struct TestFileTests {
    static let yaml = """
        bot: support
        now: "2026-12-01T08:59:00Z"
        profiles:
          bob: { name: Bob Stone }
        tests:
          - name: mixed steps
            steps:
              - send: /card bob
              - send: { text: hello all, in: "group:lobby" }
              - expect: { card: vcard, fields: { name: Bob Stone } }
              - advance: 2m
              - expect: { to: "group:lobby", none: true }
        """

    static func supportBot() throws -> LoadedBot {
        let text = "commands:\n  card: { args: [user], send: { card: vcard, user: \"{{args.user}}\" } }\n"
        return LoadedBot(file: "bots/support.yaml", id: "support", definition: try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: text, file: "bots/support.yaml"),
                         source: SourceFile(name: "bots/support.yaml", text: text))
    }

    @Test func decodesEveryStepKindWithItsLine() throws {
        let file = try YAMLDecoder(environment: [:]).decode(TestFile.self, from: TestFileTests.yaml, file: "t.test.yaml")
        #expect(file.bot.value == "support")
        #expect(file.userID == "tester")
        #expect(file.profiles?["bob"]?.name == "Bob Stone")
        let steps = try #require(file.tests.first?.steps)
        #expect(steps.map(\.line) == [8, 9, 10, 11, 12])
        guard case .send(let text, nil, nil)? = steps[0].kind, case .send(let text2, let channel?, nil)? = steps[1].kind,
              case .expect(let card)? = steps[2].kind, case .advance(let duration)? = steps[3].kind,
              case .expect(let none)? = steps[4].kind else {
            Issue.record("unexpected step kinds")
            return
        }
        #expect(text.value == "/card bob")
        #expect(text2.value == "hello all")
        #expect(channel.value == "group:lobby")
        #expect(card.fields?["name"]?.value == "Bob Stone")
        #expect(duration.value == "2m")
        #expect(none.none?.value == true && none.to?.value == "group:lobby")
        let source = SourceFile(name: "t.test.yaml", text: TestFileTests.yaml)
        #expect(TestFileValidator.validate(file, source: source, bots: [try TestFileTests.supportBot()]).isEmpty)
    }

    @Test func reportsEveryProblem() throws {
        let yaml = """
            bot: support
            user: "two words"
            now: tomorrow
            tests:
              - name: a
                steps:
                  - send: hi
                    advance: 1m
                  - send: { text: hi, in: "user:bob" }
                  - expect: { none: true, text: x }
                  - expect: { fields: { a: b }, matches: "(x" }
                  - expect: { card: ordr }
                  - expect: {}
              - name: a
                steps: []
            """
        let file = try YAMLDecoder(environment: [:]).decode(TestFile.self, from: yaml, file: "t.test.yaml")
        let errors = TestFileValidator.validate(file, source: SourceFile(name: "t.test.yaml", text: yaml),
                                                bots: [try TestFileTests.supportBot()])
        #expect(errors.map(\.description).joined(separator: "\n") == #"""
            t.test.yaml:2:7: error: invalid user 'two words': expected a user id without spaces
            user: "two words"
                  ^
            t.test.yaml:3:6: error: invalid time 'tomorrow': expected ISO 8601 like "2026-12-01T08:59:00Z"
            now: tomorrow
                 ^
            t.test.yaml:7:9: error: one step per list item, found 'send' and 'advance': start a new item with '- ' for each
                  - send: hi
                    ^
            t.test.yaml:9:31: error: invalid 'in' target 'user:bob': expected group:ID (the direct conversation is the default)
                  - send: { text: hi, in: "user:bob" }
                                          ^
            t.test.yaml:10:17: error: 'none: true' expects silence, so it takes no other key except 'to'
                  - expect: { none: true, text: x }
                            ^
            t.test.yaml:11:29: error: 'fields' needs a 'card' in the same expectation
                  - expect: { fields: { a: b }, matches: "(x" }
                                        ^
            t.test.yaml:11:49: error: invalid regex: missing closing parenthesis
                  - expect: { fields: { a: b }, matches: "(x" }
                                                            ^
            t.test.yaml:12:25: error: unknown card 'ordr' for bot 'support': expected one of greeting, vcard, link, image
                  - expect: { card: ordr }
                                    ^
            t.test.yaml:13:17: error: empty expectation: expected text, contains, matches, card, fields, quote, reaction or none
                  - expect: {}
                            ^
            t.test.yaml:14:11: error: duplicate test name 'a'
              - name: a
                      ^
            t.test.yaml:14:11: error: test 'a' has no steps
              - name: a
                      ^
            """#)
    }

    @Test func speakerIsAnotherUserOfTheBot() throws {
        let yaml = """
            bot: support
            tests:
              - name: t
                steps:
                  - send: { text: hi, in: "group:agents", as: nina }
                  - send: { text: hi, as: "two words" }
                  - send: { text: hi, as: support }
                  - send: { text: hi, as: "user:nina" }
            """
        let file = try YAMLDecoder(environment: [:]).decode(TestFile.self, from: yaml, file: "t.test.yaml")
        guard case .send(_, let channel?, let speaker?)? = file.tests.first?.steps.first?.kind else {
            Issue.record("expected a send with 'in' and 'as'")
            return
        }
        #expect(channel.value == "group:agents" && speaker.value == "nina" && speaker.mark.line == 5)
        let errors = TestFileValidator.validate(file, source: SourceFile(name: "t.test.yaml", text: yaml),
                                                bots: [try TestFileTests.supportBot()])
        #expect(errors.map(\.description).joined(separator: "\n") == #"""
            t.test.yaml:6:31: error: invalid 'as' user 'two words': expected a user id without spaces
                  - send: { text: hi, as: "two words" }
                                          ^
            t.test.yaml:7:31: error: invalid 'as' user 'support': that is the bot under test; expected a user who talks to it
                  - send: { text: hi, as: support }
                                          ^
            t.test.yaml:8:31: error: invalid 'as' user 'user:nina': expected a user id like 'nina', not a target
                  - send: { text: hi, as: "user:nina" }
                                          ^
            """#)
    }
}

@Suite struct RecipientFileTests {
    @Test func parsesTargetsSkippingCommentsAndBlankLines() throws {
        let channels = try RecipientFile.parse("# team\nuser:alice\r\n\n  group:lobby  \n", file: "r.txt").get()
        #expect(channels.map(\.target) == ["user:alice", "group:lobby"])
    }

    @Test func expectationFieldsMustBelongToTheCard() throws {
        let yaml = "bot: support\ntests:\n  - name: t\n    steps:\n      - expect: { card: vcard, fields: { nme: Bob } }\n"
        let file = try YAMLDecoder(environment: [:]).decode(TestFile.self, from: yaml, file: "t.test.yaml")
        let errors = TestFileValidator.validate(file, source: SourceFile(name: "t.test.yaml", text: yaml),
                                                bots: [try TestFileTests.supportBot()])
        #expect(errors.map(\.description) == ["""
            t.test.yaml:5:42: error: card 'vcard' has no field 'nme': its fields are user, name, avatar, phone, email, org, title
                  - expect: { card: vcard, fields: { nme: Bob } }
                                                     ^
            """])
    }

    @Test func sendStepShapes() throws {
        let yaml = "bot: support\ntests:\n  - name: t\n    steps:\n      - send: [x]\n      - send: { txet: hi }\n      - send: { text: hi, ass: nina }\n"
        do {
            _ = try YAMLDecoder(environment: [:]).decode(TestFile.self, from: yaml, file: "t.test.yaml")
            Issue.record("expected errors")
        } catch {
            #expect(error.description == """
                t.test.yaml:5:15: error: expected the text to send, or a mapping {text, in, as}, found a sequence
                      - send: [x]
                              ^
                t.test.yaml:6:15: error: missing required key 'text'
                      - send: { txet: hi }
                              ^
                t.test.yaml:6:17: error: unknown key 'txet', did you mean 'text'?
                      - send: { txet: hi }
                                ^
                t.test.yaml:7:27: error: unknown key 'ass', did you mean 'as'?
                      - send: { text: hi, ass: nina }
                                          ^
                """)
        }
    }
}
