import Foundation

/// A list of values as one PostgreSQL array parameter (text form, `{…}`), for statements that
/// take many rows at once through `unnest(CAST(? AS BIGINT[]), …)`: one parameter a column
/// instead of one a value. PostgreSQL plans and binds a VALUES list of a few hundred rows
/// (1,280 parameters) at about twice the cost of the rows' own work.
public enum PostgresArray {
    /// `values` as an array literal: each text quoted (a backslash before `"` and `\`), null as
    /// `NULL`, numbers as written, blobs as `bytea` hex (`\x…`).
    public static func literal(_ values: [StoreValue]) -> StoreValue {
        var text = "{"
        text.reserveCapacity(values.count * 12)
        for (index, value) in values.enumerated() {
            if index > 0 { text += "," }
            switch value {
            case .null: text += "NULL"
            case .integer(let number): text += String(number)
            case .real(let number): text += "\(number)"
            case .text(let string): quote(string, into: &text)
            case .blob(let data): quote("\\x" + data.map { String(format: "%02x", $0) }.joined(), into: &text)
            }
        }
        text += "}"
        return .text(text)
    }

    private static func quote(_ string: String, into text: inout String) {
        text += "\""
        for character in string.unicodeScalars {
            if character == "\"" || character == "\\" { text += "\\" }
            text.unicodeScalars.append(character)
        }
        text += "\""
    }
}
