/// A deterministic byte mutator: the same seed gives the same inputs, so a run can be repeated.
struct Mutator {
    /// xorshift64*: small, fast, good enough to pick mutations.
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// A number in `0..<bound` (bound > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// Inputs are cut to this size: bigger ones test the machine, not the decoder.
    static let maxSize = 1 << 16

    /// Tokens that matter to YAML, JSON, templates and vCards.
    static let tokens: [[UInt8]] = [
        "[", "]", "{", "}", "\"", "'", "\\", "\\u", "\\uD800", ":", ": ", "- ", ",", "\n", "\r\n", "\t", "  ", "#",
        "${", "${X:-", "}}", "{{", "&a ", "*a", "!!", "!!str ", "!!binary ", "!<tag:x>", "? ", "|", ">", "---", "...",
        "%YAML 1.1\n", "<<: ", "~", "null", "true", "1e999", "-0", "0x", "9223372036854775807", "-9223372036854775808",
        "99999999999999999999999999999", "1.7976931348623157e309", "\"type\":", "\"content\":", "\"msgtype\":",
        "\"body\":", "\"chat.parley.card\":", "chat.parley.card.", "\"m.relates_to\":", "\u{0}", "\u{FEFF}", "é",
        "👀", "\u{202E}", "\u{10FFFF}", "\u{FFFD}", "BEGIN:VCARD\r\n", "END:VCARD\r\n", "FN:", "N:", ";", "\r\n ",
        "(?<n>", ")", "*", "+", "m h", "0 9 * * 1-5", "10m", "-1s",
    ].map { Array($0.utf8) }

    /// One to four mutations of `input`; `other` is a second corpus entry to splice in.
    mutating func mutate(_ input: [UInt8], other: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0...below(4) { mutateOnce(&bytes, other: other) }
        return bytes.count > Self.maxSize ? Array(bytes.prefix(Self.maxSize)) : bytes
    }

    private mutating func mutateOnce(_ bytes: inout [UInt8], other: [UInt8]) {
        let position = below(bytes.count + 1)
        switch below(10) {
        case 0 where !bytes.isEmpty:  // flip a bit
            let index = below(bytes.count)
            bytes[index] ^= 1 << UInt8(below(8))
        case 1 where !bytes.isEmpty:  // set a byte to anything
            bytes[below(bytes.count)] = UInt8(truncatingIfNeeded: next())
        case 2:  // insert a byte
            bytes.insert(UInt8(truncatingIfNeeded: next()), at: position)
        case 3 where !bytes.isEmpty:  // delete a run
            let end = min(bytes.count, position + 1 + below(16))
            if position < end { bytes.removeSubrange(position..<end) }
        case 4 where !bytes.isEmpty:  // duplicate a run
            let start = below(bytes.count)
            let end = min(bytes.count, start + 1 + below(64))
            bytes.insert(contentsOf: bytes[start..<end], at: position)
        case 5 where !other.isEmpty:  // splice: our head, the other's tail
            let cut = below(other.count)
            bytes = Array(bytes.prefix(position)) + other[cut...]
        case 6, 7:  // an interesting token
            bytes.insert(contentsOf: Self.tokens[below(Self.tokens.count)], at: position)
        case 8:  // a token repeated: deep nesting, long numbers, long lines
            let token = Self.tokens[below(Self.tokens.count)]
            let count = min([2, 8, 64, 512, 4096][below(5)], 8192 / token.count)  // at most 8 KB
            bytes.insert(contentsOf: Array([[UInt8]](repeating: token, count: count).joined()), at: position)
        default:  // a run of digits
            let digits = (0..<(1 + below(40))).map { _ in UInt8(ascii: "0") + UInt8(below(10)) }
            bytes.insert(contentsOf: digits, at: position)
        }
    }
}
