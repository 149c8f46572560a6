import Testing
import YAMLCoding

/// The nesting depth and file size limits: refused at the place the limit was crossed, early
/// enough that libyaml's scanner never goes deep (a million `[` took minutes before).
@Suite struct LimitsTests {
    /// Any depth of sequences, each holding the next one.
    struct Nest: Decodable {
        var inner: [Nest]
        var depth: Int { 1 + (inner.map(\.depth).max() ?? 0) }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            inner = []
            while !container.isAtEnd { inner.append(try container.decode(Nest.self)) }
        }
    }

    /// `file:line:col: message` of each error, without the snippet (a line of megabytes here).
    private func positionedErrors(_ text: String, decoder: YAMLDecoder = YAMLDecoder(environment: [:])) -> [String] {
        do {
            _ = try decoder.decode(Nest.self, from: text, file: "deep.yaml")
            return []
        } catch {
            return error.errors.map { "\($0.file):\($0.mark): \($0.message)" }
        }
    }

    @Test(arguments: [
        // The 257th `[` of a million, in flow: libyaml's scanner is quadratic in flow depth.
        ("[", "deep.yaml:1:257: nesting deeper than 256 levels"),
        ("{a: ", "deep.yaml:1:1025: nesting deeper than 256 levels"),
        // Block sequences on one line nest too.
        ("- ", "deep.yaml:1:513: nesting deeper than 256 levels"),
    ])
    func aMillionLevelsAreRefusedWhereTheLimitIsCrossed(unit: String, error: String) throws {
        // The depth limit alone, not the size limit, refuses these megabytes.
        var decoder = YAMLDecoder(environment: [:])
        decoder.maximumFileSize = .max
        // First a thousand levels, which take libyaml no time either way: without the limit
        // the test stops here instead of hanging in the scanner over a million.
        try #require(positionedErrors(String(repeating: unit, count: 1_000), decoder: decoder) == [error])
        #expect(positionedErrors(String(repeating: unit, count: 1_000_000), decoder: decoder) == [error])
    }

    @Test func deepBlockMappingsAreRefused() {
        let text = (0..<300).map { String(repeating: " ", count: $0) + "a:\n" }.joined()
        #expect(positionedErrors(text) == ["deep.yaml:257:257: nesting deeper than 256 levels"])
    }

    @Test func twoHundredFiftySixLevelsDecode() throws {
        let text = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(try YAMLDecoder(environment: [:]).decode(Nest.self, from: text, file: "deep.yaml").depth == 256)
        #expect(positionedErrors("[" + text + "]") == ["deep.yaml:1:257: nesting deeper than 256 levels"])
    }

    @Test func theDepthLimitIsConfigurable() {
        var decoder = YAMLDecoder(environment: [:])
        decoder.maximumNestingDepth = 2
        #expect(positionedErrors("[[]]", decoder: decoder) == [])
        do {
            _ = try decoder.decode([String: [String: [String: Int]]].self, from: "a: {b: {c: 1}}\n", file: "t.yaml")
            Issue.record("decoded")
        } catch {
            #expect(error.description == """
                t.yaml:1:8: error: nesting deeper than 2 levels
                a: {b: {c: 1}}
                       ^
                """)
        }
    }

    @Test func aFileBeyondTheSizeLimitIsRefusedAtItsFirstByteBeyond() {
        var decoder = YAMLDecoder(environment: [:])
        decoder.maximumFileSize = 10
        #expect((try? decoder.decode([String: Int].self, from: "a: 1\nb: 2\n", file: "t.yaml")) == ["a": 1, "b": 2])
        do {
            _ = try decoder.decode([String: Int].self, from: "a: 1\nb: 22\n", file: "t.yaml")
            Issue.record("decoded")
        } catch {
            #expect(error.description == """
                t.yaml:2:6: error: file larger than 10 bytes
                b: 22
                     ^
                """)
        }
    }

    @Test func theDefaultSizeLimitIsOneMegabyte() {
        // 16 bytes a line: exactly 1 MiB is accepted, one byte more is not.
        let text = String(repeating: "# fifteen bytes\n", count: 65_536)
        #expect(positionedErrors(text) == ["deep.yaml:1:1: expected a sequence, found null"])
        #expect(positionedErrors(text + "x") == ["deep.yaml:65537:1: file larger than 1048576 bytes"])
    }
}
