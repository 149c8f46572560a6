import ParleyCore
import Testing
@testable import ParleyCLI

/// The console draws every entry of `BuiltInCard.all`, the same whether the content was just
/// made or came back off the wire, and shows what the card holds.
@Suite struct ChatRendererCardTests {
    @Test(arguments: BuiltInCard.all.map(\.name))
    func everyBuiltInCardRendersInTheConsole(name: String) throws {
        let card = try #require(BuiltInCard.named[name])
        let content = card.make(Dictionary(uniqueKeysWithValues: card.fields.map { ($0, "7") }))
        let lines = ChatRenderer.lines(for: content)
        #expect(!lines.isEmpty)
        #expect(lines.joined(separator: "\n").contains("7"))
        let received = try ContentRegistry.standard.decode(content.encoded())
        #expect(ChatRenderer.lines(for: received) == lines)
    }

    @Test func eachBuiltInCardHasItsOwnDrawing() throws {
        let drawings = try BuiltInCard.all.map { card in
            let content = card.make(Dictionary(uniqueKeysWithValues: card.fields.map { ($0, "7") }))
            return try #require(ChatRenderer.lines(for: content).first)
        }
        #expect(drawings == ["👋 7", "┌──────────┐", "🔗 7 <7>", "🖼 7 (7×7)"])
    }
}
