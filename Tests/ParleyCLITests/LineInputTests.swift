import Foundation
@testable import ParleyCLI
import Testing

/// Standard input is read a line at a time with a cap: a huge line cannot fill memory.
@Suite struct LineInputTests {
    /// The lines `StandardInput` reads from a file holding `text`.
    static func lines(_ text: String, maxBytes: Int) throws -> [String] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-lines-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try #require(fopen(path, "r"))
        defer { fclose(file) }
        var lines: [String] = []
        // Bounded: every call consumes at least one byte or ends the input.
        for _ in 0...(text.utf8.count + 1) {
            guard let line = StandardInput.readLine(maxBytes: maxBytes, next: { getc(file) }) else { break }
            lines.append(line)
        }
        return lines
    }

    @Test func aLongLineIsCutAndTheNextLineIsIntact() throws {
        let long = String(repeating: "x", count: 100_000)
        #expect(try Self.lines("hi\n\(long)\nafter\r\nlast", maxBytes: 1_000) == ["hi", String(repeating: "x", count: 1_000), "after", "last"])
    }

    @Test func emptyLinesAndTheEndOfInput() throws {
        #expect(try Self.lines("\n\nend\n", maxBytes: 10) == ["", "", "end"])
        #expect(try Self.lines("", maxBytes: 10) == [])
    }
}
