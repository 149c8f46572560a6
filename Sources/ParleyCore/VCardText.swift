/// The lexical rules of vCard text (RFC 6350 §3): folding, escaping, properties.
enum VCardText {
    /// Folds a content line so no physical line exceeds 75 octets; continuation lines start
    /// with one space (which counts towards their 75). Never splits a UTF-8 sequence.
    static func fold(_ line: String) -> String {
        let limit = 75
        var result = ""
        var current = 0
        for scalar in line.unicodeScalars {
            let size = UTF8.width(scalar)
            if current + size > limit {
                result += "\r\n "
                current = 1
            }
            result.unicodeScalars.append(scalar)
            current += size
        }
        return result
    }

    /// Splits text into logical lines (unfolding CRLF/LF + space or tab), with the number of
    /// the physical line each starts on.
    static func unfold(_ text: String) -> [(number: Int, line: String)] {
        // Works on Unicode scalars, not Characters: a fold may fall before a combining mark,
        // which would otherwise merge with the continuation space into one Character.
        var physical: [String.UnicodeScalarView] = [String.UnicodeScalarView()]
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                physical.append(String.UnicodeScalarView())
                previousWasCR = false
                continue
            }
            if previousWasCR { physical[physical.count - 1].append("\r") }
            previousWasCR = scalar == "\r"
            if !previousWasCR { physical[physical.count - 1].append(scalar) }
        }
        var result: [(number: Int, line: String)] = []
        for (index, line) in physical.enumerated() {
            if let first = line.first, first == " " || first == "\t", !result.isEmpty {
                result[result.count - 1].line.unicodeScalars.append(contentsOf: line.dropFirst())
            } else {
                result.append((index + 1, String(line)))
            }
        }
        return result
    }

    /// Escapes a text value: backslash, comma, semicolon and newlines (CRLF, CR and LF each
    /// become `\n`).
    ///
    /// Works on Unicode scalars, as RFC 6350 does: a separator followed by a combining mark is one
    /// Swift `Character` (`",\u{301}"`) but still a separator to other parsers.
    static func escape(_ value: String) -> String {
        var output = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": output.append(contentsOf: "\\\\".unicodeScalars)
            case ",": output.append(contentsOf: "\\,".unicodeScalars)
            case ";": output.append(contentsOf: "\\;".unicodeScalars)
            case "\r": output.append(contentsOf: "\\n".unicodeScalars)
            case "\n" where previous != "\r": output.append(contentsOf: "\\n".unicodeScalars)
            case "\n": break
            default: output.append(scalar)
            }
            previous = scalar
        }
        return String(output)
    }

    /// A URI value: not backslash-escaped (RFC 6350 §3.4 escapes text), written as it is except for
    /// the ASCII characters no URI contains (RFC 3986: controls, space, `"<>\^`{|}`), which are
    /// percent-encoded. Unencoded, a line break in an avatar URL would end the content line and
    /// make the rest a property of its own.
    static func uri(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var output = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            if scalar.value < 0x21 || scalar.value == 0x7F || "\"<>\\^`{|}".unicodeScalars.contains(scalar) {
                output.append("%")
                output.append(hex[Int(scalar.value >> 4)])
                output.append(hex[Int(scalar.value & 0xF)])
            } else {
                output.append(scalar)
            }
        }
        return String(output)
    }

    /// Undoes `escape`; an unknown escape keeps the character after the backslash. Per Unicode
    /// scalar, like `escape`.
    static func unescape(_ value: String) -> String {
        var output = String.UnicodeScalarView()
        var escaping = false
        for scalar in value.unicodeScalars {
            if escaping {
                output.append(scalar == "n" || scalar == "N" ? "\n" : scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                output.append(scalar)
            }
        }
        if escaping { output.append("\\") }
        return String(output)
    }

    /// The unescaped components of a structured value (split at unescaped `;`, also when a
    /// combining mark follows it, as other parsers split).
    static func components(_ value: String) -> [String] {
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        var escaping = false
        for scalar in value.unicodeScalars {
            if escaping {
                current.append("\\")
                current.append(scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == ";" {
                parts.append(unescape(String(current)))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        parts.append(unescape(String(current)))
        return parts
    }

    static func error(_ message: String, line: Int) -> ParleyError {
        ParleyError(.invalidContent, "vCard line \(line): \(message)", context: ["line": String(line)])
    }

    /// One content line: `[group.]NAME[;PARAM=…]:VALUE`, the name upper-cased without group.
    struct Property {
        var name: String
        var value: String

        init?(_ line: String) {
            // The value starts at the first colon outside a quoted parameter value. Scalars, not
            // Characters: a value may start with a combining mark, which joins the colon's Character.
            let scalars = line.unicodeScalars
            var quoted = false
            var colon: String.Index?
            for index in scalars.indices {
                let scalar = scalars[index]
                if scalar == "\"" { quoted.toggle() }
                if scalar == ":" && !quoted { colon = index; break }
            }
            guard let colon else { return nil }
            let head = String(Substring(scalars[..<colon]))
            let nameWithGroup = head.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            let name = nameWithGroup.split(separator: ".").last.map { $0.uppercased() } ?? ""
            guard !name.isEmpty else { return nil }
            self.name = name
            self.value = String(Substring(scalars[scalars.index(after: colon)...]))
        }
    }
}
