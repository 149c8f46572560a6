import Foundation

// MARK: - Fast JSON parsing

extension JSONValue {
    /// Parses JSON bytes (RFC 8259: any value at the top, surrounded by optional whitespace);
    /// invalid JSON throws `ParleyError.invalidContent` naming the byte offset at fault.
    ///
    /// Written by hand because every homeserver answer goes through it (a `/sync` carries whole
    /// rooms of events): `JSONDecoder` into the `Codable` conformance tried each case in turn and
    /// built a coding path per value, and cost more CPU than the rest of a bot's reply.
    public static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
            return try parser.parseDocument()
        }
    }

    /// Parses the UTF-8 of `text` (see `parse(_: Data)`).
    public static func parse(_ text: String) throws -> JSONValue {
        var text = text
        return try text.withUTF8 { utf8 in
            var parser = JSONParser(bytes: utf8)
            return try parser.parseDocument()
        }
    }
}

/// A recursive-descent parser over contiguous bytes. Nesting is limited (as `JSONDecoder`
/// limits it) so hostile input cannot overflow the stack.
private struct JSONParser {
    static let maxDepth = 512

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected text after the value") }
        return value
    }

    private func failure(_ reason: String) -> ParleyError {
        ParleyError(.invalidContent, "invalid JSON: \(reason) at byte \(index)")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try nested { try $0.parseObject() }
        case UInt8(ascii: "["): return try nested { try $0.parseArray() }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character")
        }
    }

    private mutating func nested(_ body: (inout JSONParser) throws -> JSONValue) throws -> JSONValue {
        depth += 1
        guard depth <= Self.maxDepth else { throw failure("nested more than \(Self.maxDepth) levels deep") }
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func expectWord(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw failure("unexpected end") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("unexpected character")
        }
        index += count
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw failure("expected \(what)") }
        index += 1
    }

    /// Whether the next non-space byte is `byte`; consumes it if so.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func parseObject() throws -> JSONValue {
        index += 1  // {
        var object: [String: JSONValue] = [:]
        if take(UInt8(ascii: "}")) { return .object(object) }
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try parseString()
            try expect(UInt8(ascii: ":"), "':'")
            object[key] = try parseValue()
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"), "',' or '}'")
        return .object(object)
    }

    private mutating func parseArray() throws -> JSONValue {
        index += 1  // [
        var array: [JSONValue] = []
        if take(UInt8(ascii: "]")) { return .array(array) }
        repeat {
            array.append(try parseValue())
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"), "',' or ']'")
        return .array(array)
    }

    /// A string from its opening quote. Runs without escapes are copied in one piece; the
    /// bytes must be valid UTF-8 and hold no raw control characters.
    private mutating func parseString() throws -> String {
        index += 1  // "
        var start = index
        var escaped: [UInt8]? = nil
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
                let text: String?
                if var escaped {
                    escaped.append(contentsOf: run)
                    text = String(validating: escaped, as: UTF8.self)
                } else {
                    text = String(validating: run, as: UTF8.self)
                }
                guard let text else { throw failure("invalid UTF-8 in a string") }
                index += 1
                return text
            }
            if byte < 0x20 { throw failure("a control character in a string") }
            if byte == UInt8(ascii: "\\") {
                var buffer = escaped ?? []
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                try appendEscape(to: &buffer)
                escaped = buffer
                start = index
                continue
            }
            index += 1
        }
        throw failure("unterminated string")
    }

    /// One escape after its backslash; `\u` pairs of surrogates join into one scalar.
    private mutating func appendEscape(to buffer: inout [UInt8]) throws {
        guard index < bytes.count else { throw failure("unterminated string") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad()
            if (0xD800..<0xDC00).contains(scalar) {
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw failure("a lone surrogate in a \\u escape") }
                index += 2
                let low = try hexQuad()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("a lone surrogate in a \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("an invalid \\u escape") }
            buffer.append(contentsOf: UTF8.encode(unicode)!)
        default:
            index -= 1
            throw failure("an invalid escape")
        }
    }

    private mutating func hexQuad() throws -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("an incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("an invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A number: `.int` when written as an integer that fits 64 bits, `.double` otherwise.
    private mutating func parseNumber() throws -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number without digits") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("a number with a leading zero") }
        } else {
            skipDigits()
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number without digits after '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number without exponent digits") }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw failure("a number out of range") }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
}
