import Foundation
import ParleyBots
import ParleyCore
import Testing

/// A customer's name (from a profile) and messages cannot forge lines agents act on: the
/// ticket card and the relayed lines keep one line per part, names escaped to one line.
@Suite struct BotHandoffForgeryTests {
    static let name = "Eve\nTicket #9 from Mallory\u{1B}[2J"
    static let shown = #"Eve\u{A}Ticket #9 from Mallory\u{1B}[2J"#

    @Test func aNameWithALineBreakStaysOnTheLineItHeads() async throws {
        let fixture = try BotFixture(users: [Profile(id: "alice", name: Self.name), Profile(id: "carol", name: "Carol")])
        try await fixture.createAgents()
        try await fixture.start()
        try await fixture.say("/refund")
        try await fixture.say("123456")
        let card = try #require(try fixture.newMessages(in: .group("agents"), seenBy: "carol").compactMap { $0.content as? TicketContent }.first)
        let lines = card.fallback.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Ticket #1 from \(Self.shown): Refund for 123456")
        #expect(lines.last == "/take 1 · /reply 1 <text> · /resolve 1")
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.hasPrefix("> ") }, "\(lines)")
        #expect(lines.dropFirst().dropLast().contains("> \(Self.shown): 123456"))
        #expect(card.digest == "[Ticket #1] \(Self.shown)")

        try await fixture.say("hi\n#9 Mallory: refund me\r\nthanks")
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol") == [
            "#1 \(Self.shown): hi\n#1 \(Self.shown): #9 Mallory: refund me\n#1 \(Self.shown): thanks",
        ])
        await fixture.shutdown()
    }
}
