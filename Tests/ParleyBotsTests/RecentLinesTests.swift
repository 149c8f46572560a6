@testable import ParleyBots
import Testing

@Suite struct RecentLinesTests {
    @Test func theNewestLinesComeBackOldestFirstAfterTheRingWraps() {
        var recent = RecentLines()
        for index in 1...7 { recent.append(name: "User", text: "line \(index)", limit: 3) }
        #expect(recent.joined == ["User: line 5", "User: line 6", "User: line 7"])
        var partial = RecentLines()
        partial.append(name: "Bot", text: "hello", limit: 3)
        partial.append(name: "Ann", text: "hi", limit: 3)
        #expect(partial.joined == ["Bot: hello", "Ann: hi"])
    }

    @Test func aLimitOfZeroKeepsNothing() {
        var recent = RecentLines()
        recent.append(name: "User", text: "hello", limit: 0)
        #expect(recent.joined.isEmpty)
    }

    @Test(arguments: [(198, false), (199, true), (250, true)])
    func aLongLineIsCutTo200Characters(textLength: Int, cut: Bool) throws {
        var recent = RecentLines()
        // "Zoë: " is 5 characters (6 UTF-8 bytes): 195 characters of text make exactly 200.
        let text = String(repeating: "é", count: textLength - 3)
        recent.append(name: "Zoë", text: text, limit: 1)
        let line = try #require(recent.joined.first)
        #expect(line == (cut ? String("Zoë: \(text)".prefix(200)) + "…" : "Zoë: \(text)"))
        #expect(line.count == min(5 + textLength - 3, 200) + (cut ? 1 : 0))
    }
}
