/// A YAML file's name and text, for positioned errors found after decoding (semantic
/// validation): `source.error(at: located.mark, "unknown card 'vcrd'")`.
public struct SourceFile: Sendable {
    /// The file name used in error messages.
    public var name: String
    /// The whole text of the file.
    public var text: String

    /// Wraps a file's name and text.
    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }

    /// An error at `mark`, with the source line filled in for the snippet.
    public func error(at mark: Mark, _ message: String, codingPath: [String] = []) -> YAMLError {
        YAMLError(file: name, mark: mark, codingPath: codingPath, message: message, sourceLine: line(mark.line))
    }

    /// The text of the 1-based line `number`, without its line break; nil past the end.
    public func line(_ number: Int) -> String? {
        guard number >= 1 else { return nil }
        var current = 1
        var start = text.utf8.startIndex
        var index = start
        let end = text.utf8.endIndex
        while index < end {
            let byte = text.utf8[index]
            if byte == UInt8(ascii: "\n") {
                if current == number { return Self.trimmingCR(text.utf8[start..<index]) }
                current += 1
                start = text.utf8.index(after: index)
            }
            index = text.utf8.index(after: index)
        }
        return current == number && start < end ? Self.trimmingCR(text.utf8[start..<end]) : nil
    }

    /// The text of several lines in one pass over the file (for reports with many errors).
    func lines(_ numbers: Set<Int>) -> [Int: String] {
        var found: [Int: String] = [:]
        guard let last = numbers.max() else { return found }
        var current = 1
        var start = text.utf8.startIndex
        var index = start
        let end = text.utf8.endIndex
        while index < end, current <= last {
            if text.utf8[index] == UInt8(ascii: "\n") {
                if numbers.contains(current) { found[current] = Self.trimmingCR(text.utf8[start..<index]) }
                current += 1
                start = text.utf8.index(after: index)
            }
            index = text.utf8.index(after: index)
        }
        if current <= last, start < end, numbers.contains(current) { found[current] = Self.trimmingCR(text.utf8[start..<end]) }
        return found
    }

    private static func trimmingCR(_ bytes: Substring.UTF8View) -> String {
        var bytes = bytes
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        return String(Substring(bytes))
    }
}
