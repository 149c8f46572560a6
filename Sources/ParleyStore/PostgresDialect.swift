/// Turns the SQL the stores write (SQLite's) into PostgreSQL's, for the few forms that differ
/// in spelling only, so one statement serves both databases:
/// - `?` and `?N` parameters become `$n`;
/// - `INSERT OR IGNORE INTO …` becomes `INSERT INTO … ON CONFLICT DO NOTHING`;
/// - `BEGIN IMMEDIATE` becomes `BEGIN`.
/// Anything else must already be common to both (upserts are written `ON CONFLICT (…) DO
/// UPDATE`); what cannot be translated (`INSERT OR REPLACE`) is refused, naming the statement.
enum PostgresDialect {
    struct Translated: Equatable {
        var sql: String
        var parameterCount: Int
    }

    static func translate(_ sql: String) throws -> Translated {
        var text = sql.trimmingTrailingSemicolons()
        if text.range(of: "INSERT OR REPLACE", options: .caseInsensitive) != nil {
            throw StoreError(code: 1, message: "INSERT OR REPLACE has no PostgreSQL form: write ON CONFLICT (...) DO UPDATE", sql: sql)
        }
        if text.caseInsensitiveCompare("BEGIN IMMEDIATE") == .orderedSame { return Translated(sql: "BEGIN", parameterCount: 0) }
        if let range = text.range(of: "INSERT OR IGNORE INTO", options: .caseInsensitive) {
            text.replaceSubrange(range, with: "INSERT INTO")
            if let returning = text.range(of: " RETURNING ", options: [.caseInsensitive, .backwards]) {
                text.insert(contentsOf: " ON CONFLICT DO NOTHING", at: returning.lowerBound)
            } else {
                text += " ON CONFLICT DO NOTHING"
            }
        }
        return numberParameters(text)
    }

    /// `?` → `$1`, `$2`, … in order; `?N` → `$N`. Quoted text and identifiers are left alone.
    private static func numberParameters(_ sql: String) -> Translated {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var next = 1, highest = 0
        var quote: Character?
        var characters = sql.makeIterator()
        var pending: Character? = characters.next()
        while let character = pending {
            pending = characters.next()
            if let open = quote {
                result.append(character)
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                result.append(character)
            case "?":
                var digits = ""
                while let digit = pending, digit.isASCII, digit.isNumber {
                    digits.append(digit)
                    pending = characters.next()
                }
                let number = Int(digits) ?? next
                next = number + 1
                highest = max(highest, number)
                result += "$\(number)"
            default:
                result.append(character)
            }
        }
        return Translated(sql: result, parameterCount: highest)
    }
}

extension String {
    fileprivate func trimmingTrailingSemicolons() -> String {
        var text = Substring(self)
        while let last = text.last, last == ";" || last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
