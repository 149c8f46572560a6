import Foundation
import Testing
import YAMLCoding
import ParleyBots
import ParleyCore
@testable import ParleyFlowTest

/// A recorded file names only cards `parley test` knows: the built-ins and the bot's own.
@Suite struct RecordedCardTests {
    @Test func cardsATestCannotNameAreExpectedByTheirText() throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let bot = try #require(harness.bots.first { $0.id == "helper" })
        let recorder = OutputRecorder(userID: "alice")
        let time = Date(timeIntervalSince1970: 1_796_119_200)
        func output(_ content: any MessageContent, to channel: Channel = .person("alice")) {
            recorder.record(BotOutput(channel: channel, kind: .message(payload: content.encoded(), messageID: UUID().uuidString, replyTo: nil),
                                      time: time))
        }
        let ticket = TicketContent(number: 1, user: VCardContent(user: "alice", name: "Alice Liddell"), note: "Help", recent: [], prefix: "/")
        // The hand-off's ticket: named like helper's own `ticket` card, but of another type.
        output(ticket, to: .group("desk"))
        output(UnknownContent(typeCode: 2000, raw: ["type": .int(2000), "card": .string("poll"), "fallback": .string("Vote: yes or no")]))
        output(VCardContent(user: "bob", name: "Bob Stone"))
        let own = try #require(try CompiledBot(id: bot.id, definition: bot.definition, file: bot.file).cards["ticket"])
        output(try CardContent(definition: own, values: ["id": .string("9"), "state": .string("open")]))

        let yaml = TestFileWriter.yaml(from: recorder, botID: "helper", start: time, definition: bot.definition)
        #expect(yaml.contains(#"""
                  # a "ticket" card, which a test cannot name: expected by its text
                  - expect: { to: "group:desk", text: "Ticket #1 from Alice Liddell: Help\n/take 1 · /reply 1 <text> · /resolve 1" }
                  # a "poll" card, which a test cannot name: expected by its text
                  - expect: { text: "Vote: yes or no" }
                  - expect: { card: "vcard", fields: { name: "Bob Stone", user: "bob" } }
                  - expect: { card: "ticket", fields: { id: "9", state: "open" } }
            """#), "\(yaml)")
        let file = try YAMLDecoder(environment: [:]).decode(TestFile.self, from: yaml, file: "recorded.test.yaml")
        #expect(TestFileValidator.validate(file, source: SourceFile(name: "recorded.test.yaml", text: yaml), bots: harness.bots)
                    .map(\.description) == [])
    }
}
