/// Text from users, profiles or bots made safe to show on a terminal or in a line others read.
///
/// Such text may carry escape sequences (OSC retitles or rewrites the operator's terminal, CSI
/// clears it), carriage returns and newlines that forge a line (`Support: …`), or bidi
/// overrides that make a line read differently from what it is. Every control character —
/// all of C0 (tab and newline included), DEL, C1 — and the bidi overrides and isolates
/// (U+202A–U+202E, U+2066–U+2069) become a visible escape in Swift's notation, the scalar's
/// hexadecimal code in upper case: ESC is `\u{1B}`, a newline `\u{A}`, RLO `\u{202E}`. The
/// backslash itself is left alone: an escape only has to be visible, not reversible, and the
/// result contains no control character, so escaping it again changes nothing.
public enum VisibleText {
    /// `text` as one line: every control character, newlines included, escaped.
    public static func line(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `text` split at its line breaks (`\n`, `\r\n`), each line escaped as by `line(_:)`:
    /// message bodies keep their lines, and a lone `\r` cannot overwrite one.
    public static func lines(_ text: String) -> [String] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { line(String($0)) }
    }

    /// Whether `text` has a character `line(_:)` escapes: ids and names with one are refused
    /// where they enter (a command line, a profile, a bot file).
    public static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isControl)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
