/// A fixed list of key names prepared for `NodeReader.keysPresent(among:)`: their UTF-8 bytes
/// kept once, so that finding which of them a mapping has is one pass over the mapping's keys
/// (byte comparisons) instead of one lookup per name. Make it once (a `static let`).
public struct KeyNames: Sendable {
    /// The names, in the order given (bit `i` of a presence mask is `names[i]`).
    public let names: [String]
    let utf8: [[UInt8]]
    let isASCII: [Bool]

    /// Prepares `names` (at most 64).
    public init(_ names: [String]) {
        precondition(names.count <= 64, "KeyNames holds at most 64 names")
        self.names = names
        utf8 = names.map { Array($0.utf8) }
        isASCII = utf8.map { $0.allSatisfy { $0 < 0x80 } }
    }

    /// The bit of the name at `index` in a presence mask.
    public static func bit(_ index: Int) -> UInt64 {
        1 << UInt64(index)
    }
}
