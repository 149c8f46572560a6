import YAMLCoding
/// Turns an offset inside a scalar's value into a file position, so an error in a regex or a
/// template points at the exact column. Works when the scalar sits on one line (plain,
/// 'single' or "double" quoted); otherwise the scalar's own start is the best answer.
enum ScalarPosition {
    /// The position of the value's `offset`-th Unicode scalar.
    static func mark(of offset: Int, in located: Located<String>, source: SourceFile) -> Mark {
        let mark = located.mark
        guard offset > 0, let line = source.line(mark.line) else { return mark }
        let scalars = Array(line.unicodeScalars)
        var index = mark.column - 1
        guard index >= 0, index < scalars.count else { return mark }
        if scalars[index] == "|" { return literalBlockMark(of: offset, in: located, source: source) }
        guard !located.value.utf8.contains(UInt8(ascii: "\n")) else { return mark }
        switch scalars[index] {
        case "\"":
            index += 1
            for _ in 0..<offset where index < scalars.count {
                index += scalars[index] == "\\" ? escapeLength(scalars, at: index) : 1
            }
        case "'":
            index += 1
            for _ in 0..<offset where index < scalars.count {
                index += scalars[index] == "'" ? 2 : 1
            }
        case "|", ">":
            return mark
        default:
            index += offset
        }
        guard index <= scalars.count else { return mark }
        return Mark(line: mark.line, column: index + 1)
    }

    /// In a literal block (`|`) each line of the value is a line of the file, indented by the
    /// block's indentation: the line after the `|` holds the value's first line.
    private static func literalBlockMark(of offset: Int, in located: Located<String>, source: SourceFile) -> Mark {
        var lineIndex = 0, column = 0, seen = 0
        for scalar in located.value.unicodeScalars {
            if seen == offset { break }
            if scalar == "\n" {
                lineIndex += 1
                column = 0
            } else {
                column += 1
            }
            seen += 1
        }
        // The block's indentation is that of its first non-blank line.
        var indentation: Int?
        var number = located.mark.line + 1
        while indentation == nil, let text = source.line(number), number <= located.mark.line + 1 + lineIndex {
            if text.contains(where: { $0 != " " }) { indentation = text.prefix { $0 == " " }.count }
            number += 1
        }
        let target = located.mark.line + 1 + lineIndex
        guard let indentation, let text = source.line(target), indentation + column <= text.unicodeScalars.count else {
            return located.mark
        }
        return Mark(line: target, column: indentation + column + 1)
    }

    /// Source length of a double-quoted escape starting at `index` (`\n` 2, `\xFF` 4, …).
    private static func escapeLength(_ scalars: [Unicode.Scalar], at index: Int) -> Int {
        guard index + 1 < scalars.count else { return 1 }
        switch scalars[index + 1] {
        case "x": return 4
        case "u": return 6
        case "U": return 10
        default: return 2
        }
    }

    /// Unicode scalars before the `characters`-th Character of `text` (Template offsets count
    /// Characters; positions count scalars, as libyaml does).
    static func scalarOffset(ofCharacter characters: Int, in text: String) -> Int {
        let end = text.index(text.startIndex, offsetBy: characters, limitedBy: text.endIndex) ?? text.endIndex
        return text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: end)
    }
}
