import ParleyCore

/// A fresh secret for a session of the web door (a visitor's chat, an agent's console, its
/// CSRF value): 32 bytes from the system's random source (`SystemRandomNumberGenerator`: the
/// kernel's CSPRNG), base64url without padding, so it goes in a cookie or a header as it is.
/// 256 bits: not to be guessed.
enum SessionSecret {
    static func make() -> String {
        base64url(randomBytes(32))
    }

    /// RFC 4648 §5 alphabet, no `=`.
    static func base64url(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var text = ""
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var bits = 0
            for byte in chunk { bits = bits << 8 | Int(byte) }
            bits <<= 8 * (3 - chunk.count)
            for position in 0...chunk.count { text.append(alphabet[(bits >> (18 - 6 * position)) & 63]) }
            index += 3
        }
        return text
    }
}
