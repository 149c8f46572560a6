// MARK: - Fast compact JSON writing

extension JSONValue {
    /// Compact JSON with sorted keys, written by hand: the hot paths (outbox rows, stored
    /// messages, size checks, request bodies) run per message, where `JSONEncoder` is slow.
    /// Strings escape `"`, `\` and control characters; `/` and non-ASCII are written as is.
    public func compactJSON() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The number of UTF-8 bytes `compactJSON()` produces, computed without building it.
    public var encodedByteCount: Int {
        switch self {
        case .null: return 4
        case .bool(let value): return value ? 4 : 5
        case .int(let value): return String(value).utf8.count
        case .double(let value): return Self.doubleText(value).utf8.count
        case .string(let value): return Self.stringByteCount(value)
        case .array(let values): return 2 + values.reduce(0) { $0 + $1.encodedByteCount } + max(0, values.count - 1)
        case .object(let object):
            return 2 + object.reduce(0) { $0 + Self.stringByteCount($1.key) + 1 + $1.value.encodedByteCount } + max(0, object.count - 1)
        }
    }

    /// Appends `compactJSON()`'s bytes.
    func write(into bytes: inout [UInt8]) {
        // Only canonical writing throws.
        try? write(into: &bytes, canonical: false)
    }

    /// Writes the value; with `canonical`, as Matrix canonical JSON (see `canonicalJSON()`):
    /// keys ordered by code point, numbers only integers in range (else `CanonicalJSONError`).
    func write(into bytes: inout [UInt8], canonical: Bool) throws(CanonicalJSONError) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value):
            if canonical, abs(value) > Self.canonicalIntegerLimit { throw CanonicalJSONError(number: String(value)) }
            bytes.append(contentsOf: String(value).utf8)
        case .double(let value):
            if canonical {
                guard value.isFinite, value.rounded() == value, abs(value) <= Double(Self.canonicalIntegerLimit) else {
                    throw CanonicalJSONError(number: String(value))
                }
                bytes.append(contentsOf: String(Int64(value)).utf8)
            } else {
                bytes.append(contentsOf: Self.doubleText(value).utf8)
            }
        case .string(let value): Self.writeString(value, into: &bytes)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try value.write(into: &bytes, canonical: canonical)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            // Payloads are objects of one or two keys: those are ordered without sorting
            // (an array per object) and without looking each key up again.
            func member(_ key: String, _ value: JSONValue, first: Bool) throws(CanonicalJSONError) {
                if !first { bytes.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                try value.write(into: &bytes, canonical: canonical)
            }
            if canonical {
                // By code point (UTF-8 byte order), as Matrix requires; `String.<` orders by
                // canonical equivalence, which differs for keys that are not NFC.
                for (index, entry) in object.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                    try member(entry.key, entry.value, first: index == 0)
                }
            } else if object.count <= 2 {
                var members = object.makeIterator()
                if let one = members.next() {
                    if let two = members.next() {
                        let (low, high) = one.key < two.key ? (one, two) : (two, one)
                        try member(low.key, low.value, first: true)
                        try member(high.key, high.value, first: false)
                    } else {
                        try member(one.key, one.value, first: true)
                    }
                }
            } else {
                for (index, entry) in object.sorted(by: { $0.key < $1.key }).enumerated() {
                    try member(entry.key, entry.value, first: index == 0)
                }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Non-finite doubles have no JSON form and are written as null.
    private static func doubleText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func stringByteCount(_ value: String) -> Int {
        var count = 2
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x0C, 0x0A, 0x0D, 0x09: count += 2
            case 0..<0x20: count += 6
            default: count += 1
            }
        }
        return count
    }

    private static func writeString(_ value: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escape: then they are copied in one go. Scanned through the
        // contiguous UTF-8 (the generic `utf8.contains` cost more than the copy).
        var text = value
        let plain = text.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
