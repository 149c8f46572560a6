/// A Swift type decoded straight from a scalar's text (after `${VAR}` substitution).
protocol ScalarValue {
    /// What the type wants, for messages: "a string", "a number", "true or false".
    static var expectation: String { get }
    /// The stand-in used when a failed value is replaced to keep decoding its siblings.
    static var lenientDefault: Self { get }
    /// Whether quoted and block scalars count: only strings take them, so `"42"` stays text
    /// (code that tries Bool, then Int, then String keeps quoted values as strings).
    static var acceptsQuoted: Bool { get }
    /// The value of `text`, or nil.
    static func parse(_ text: String) -> Self?
    /// Why `text` is not a value of this type (only called when `parse` gave nil).
    static func problem(with text: String) -> String
}

extension ScalarValue {
    static var acceptsQuoted: Bool { false }

    static func problem(with text: String) -> String {
        "expected \(expectation), found '\(text.replacingNewlines())'"
    }
}

extension String: ScalarValue {
    static var expectation: String { "a string" }
    static var lenientDefault: String { "" }
    static var acceptsQuoted: Bool { true }
    static func parse(_ text: String) -> String? { text }
}

extension Bool: ScalarValue {
    static var expectation: String { "true or false" }
    static var lenientDefault: Bool { false }
    /// Only `true` and `false`: `yes`, `no`, `on`, `off` are strings (the YAML 1.2 habit).
    static func parse(_ text: String) -> Bool? {
        switch text {
        case "true": true
        case "false": false
        default: nil
        }
    }
}

extension Double: ScalarValue {
    static var expectation: String { "a number" }
    static var lenientDefault: Double { 0 }
    static func parse(_ text: String) -> Double? { parseYAMLFloat(text) }
}

extension Float: ScalarValue {
    static var expectation: String { "a number" }
    static var lenientDefault: Float { 0 }
    static func parse(_ text: String) -> Float? { parseYAMLFloat(text).map(Float.init) }
}

/// YAML 1.2 core-schema floats: decimal and exponent forms, `.inf`, `-.inf`, `.nan`.
func parseYAMLFloat(_ text: String) -> Double? {
    switch text {
    case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
    case "-.inf", "-.Inf", "-.INF": return -.infinity
    case ".nan", ".NaN", ".NAN": return .nan
    default: break
    }
    // Swift's parser also takes `inf`, `nan` and hex floats; YAML does not.
    guard text.utf8.allSatisfy({ byte in
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }) else { return nil }
    return Double(text)
}

/// Integers for every fixed-width type: decimal, `0x` hex and `0o` octal, with an optional sign.
protocol IntegerScalarValue: ScalarValue, FixedWidthInteger {}

extension IntegerScalarValue {
    static var expectation: String { "a number" }
    static var lenientDefault: Self { 0 }

    static func parse(_ text: String) -> Self? {
        var digits = Substring(text)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        var radix = 10
        if digits.hasPrefix("0x") {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.hasPrefix("0o") {
            radix = 8
            digits = digits.dropFirst(2)
        }
        guard let first = digits.first, first != "-", first != "+" else { return nil }
        if negative { return Self("-" + digits, radix: radix) }
        return Self(digits, radix: radix)
    }

    static func problem(with text: String) -> String {
        if let number = parseYAMLFloat(text), number.isFinite {
            if number.rounded() != number {
                return "expected a whole number, found '\(text)'"
            }
            return "expected a number from \(Self.min) to \(Self.max), found '\(text)'"
        }
        return "expected \(expectation), found '\(text.replacingNewlines())'"
    }
}

extension Int: IntegerScalarValue {}
extension Int8: IntegerScalarValue {}
extension Int16: IntegerScalarValue {}
extension Int32: IntegerScalarValue {}
extension Int64: IntegerScalarValue {}
extension UInt: IntegerScalarValue {}
extension UInt8: IntegerScalarValue {}
extension UInt16: IntegerScalarValue {}
extension UInt32: IntegerScalarValue {}
extension UInt64: IntegerScalarValue {}
