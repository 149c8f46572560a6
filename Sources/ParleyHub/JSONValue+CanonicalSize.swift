import ParleyCore

extension JSONValue {
    /// An upper bound of `jsonData().count`, computed without encoding: exact for
    /// everything but doubles (counted as 32 bytes) and control characters in strings
    /// (counted as the longest escape, `\u00XX`). With `scanning` false, strings are not
    /// read at all (every byte counted as a 6-byte escape): a looser bound at O(1) per string.
    func canonicalSizeBound(scanning: Bool = true) -> Int {
        switch self {
        case .null: return 4
        case .bool(let value): return value ? 4 : 5
        case .int(let value): return Self.digits(value)
        case .double: return 32
        case .string(let value): return Self.stringSize(value, scanning: scanning)
        case .array(let values):
            return values.reduce(2 + max(0, values.count - 1)) { $0 + $1.canonicalSizeBound(scanning: scanning) }
        case .object(let object):
            // Braces, commas, and one colon per member.
            return object.reduce(2 + max(0, object.count - 1)) {
                $0 + Self.stringSize($1.key, scanning: scanning) + 1 + $1.value.canonicalSizeBound(scanning: scanning)
            }
        }
    }

    private static func digits(_ value: Int64) -> Int {
        if value == .min { return 20 }
        var magnitude = value < 0 ? -value : value
        var count = value < 0 ? 2 : 1
        while magnitude >= 10 { magnitude /= 10; count += 1 }
        return count
    }

    private static func stringSize(_ value: String, scanning: Bool) -> Int {
        guard scanning else { return 2 + 6 * value.utf8.count }
        var size = 2
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): size += 2
            case 0..<0x20: size += 6
            default: size += 1
            }
        }
        return size
    }
}
