import Testing
import ParleyRegex

@Suite struct PatternTests {
    @Test func namedGroupsAreReturnedByName() throws {
        let pattern = try Pattern("order (?<number>[0-9]{6}) for (?<who>\\w+)(?<missing>!)?")
        let match = try #require(try pattern.firstMatch(in: "re: order 123456 for alice."))
        #expect(match.text == "order 123456 for alice")
        #expect(match.groups == ["number": "123456", "who": "alice"])
        #expect(pattern.namedGroups.map(\.name) == ["number", "who", "missing"])
    }

    @Test func rangePointsIntoTheSearchedText() throws {
        let text = "say thanks now"
        let match = try #require(try Pattern("thanks").firstMatch(in: text))
        #expect(text[match.range] == "thanks")
        #expect(text.distance(from: text.startIndex, to: match.range.lowerBound) == 4)
    }

    @Test(arguments: ["Thanks!", "THANK you", "many thanks"])
    func inlineCaseInsensitiveFlag(text: String) throws {
        #expect(try Pattern("(?i)\\bthanks?\\b").matches(text))
    }

    @Test func caseSensitiveByDefault() throws {
        #expect(try Pattern("thanks").matches("THANKS") == false)
    }

    @Test func utf8AndEmoji() throws {
        let pattern = try Pattern("(?<heart>❤️|👍🏽)\\s*(?<word>\\w+)")
        let text = "Grüße 👍🏽 größer"
        let match = try #require(try pattern.firstMatch(in: text))
        #expect(match.groups["heart"] == "👍🏽")
        // \w is Unicode-aware (UCP), so umlauts and ß count as word characters.
        #expect(match.groups["word"] == "größer")
        #expect(text[match.range] == "👍🏽 größer")
        #expect(try Pattern("^.{5}$").matches("Grüße"))
    }

    @Test func compileErrorCarriesMessageAndScalarOffset() {
        #expect(throws: PatternError.compile(message: "missing closing parenthesis", offset: 9)) {
            try Pattern("ü(?<x>abc")
        }
        #expect(throws: PatternError.compile(message: "quantifier does not follow a repeatable item", offset: 0)) {
            try Pattern("*a")
        }
    }

    @Test func compileErrorDescription() {
        let error = PatternError.compile(message: "missing closing parenthesis", offset: 3)
        #expect(error.description == "invalid regular expression at offset 3: missing closing parenthesis")
    }

    @Test func sharedAcrossTasks() async throws {
        let pattern = try Pattern("(?<n>[0-9]+)")
        let results = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<8 {
                group.addTask { try pattern.firstMatch(in: "item \(index)")?.groups["n"] }
            }
            var all: [String] = []
            for try await value in group { all.append(value ?? "") }
            return all.sorted()
        }
        #expect(results == (0..<8).map(String.init))
    }
}
