/// A fixed list of key names prepared for `NodeReader.keysPresent(among:)`: their UTF-8 bytes
/// laid out once, so that finding which of them a mapping has is one pass over the mapping's
/// keys (length, first byte, then bytes) instead of one lookup per name. Make it once (a
/// `static let`).
public struct KeyNames: Sendable {
    /// The names, in the order given (bit `i` of a presence mask is `names[i]`).
    public let names: [String]
    /// Every name's UTF-8, one after the other.
    let bytes: [UInt8]
    let starts: [Int]
    let lengths: [Int]
    let isASCII: [Bool]
    /// Per name, `signature(length:first:)` when it is ASCII, else `nil` (`.max`): an ASCII key
    /// with another signature is another name, told with one comparison.
    let signatures: [UInt64]

    /// Prepares `names` (at most 64).
    public init(_ names: [String]) {
        precondition(names.count <= 64, "KeyNames holds at most 64 names")
        self.names = names
        let utf8 = names.map { Array($0.utf8) }
        bytes = utf8.flatMap { $0 }
        let lengths = utf8.map(\.count)
        self.lengths = lengths
        starts = lengths.indices.map { lengths[..<$0].reduce(0, +) }
        isASCII = utf8.map { $0.allSatisfy { $0 < 0x80 } }
        signatures = utf8.map { bytes in
            bytes.allSatisfy { $0 < 0x80 } ? Self.signature(length: bytes.count, first: bytes.first ?? 0) : .max
        }
    }

    /// An ASCII text's length and first byte in one number.
    static func signature(length: Int, first: UInt8) -> UInt64 {
        UInt64(truncatingIfNeeded: length) << 8 | UInt64(first)
    }

    /// The bit of the name at `index` in a presence mask.
    @inlinable
    public static func bit(_ index: Int) -> UInt64 {
        1 << UInt64(index)
    }
}

extension KeyNames {
    /// The index of the name equal to the scalar `key` (nil: none, or not a scalar), among the
    /// names not in `excluded`; `all` and `signatures` are `bytes` and `signatures`, held by
    /// the caller for all of its keys.
    @inline(__always)
    func index(of key: NodeID, in tree: TreeView, all: UnsafeBufferPointer<UInt8>, signatures: UnsafeBufferPointer<UInt64>,
               excluding excluded: UInt64) -> Int? {
        let record = tree.record(key)
        guard record.kind == .scalar else { return nil }
        // ASCII on both sides: a different length or first byte is a different key.
        let signature = record.isASCII
            ? KeyNames.signature(length: Int(record.count), first: record.count > 0 ? tree.bytes[Int(record.start)] : 0) : nil
        for index in signatures.indices where excluded & KeyNames.bit(index) == 0 {
            if let signature, signatures[index] != .max, signatures[index] != signature { continue }
            let wanted = UnsafeBufferPointer(rebasing: all[starts[index]..<starts[index] + lengths[index]])
            if tree.scalar(key, equalsUTF8: wanted, isASCII: isASCII[index]) ?? tree.scalar(key, equals: names[index]) { return index }
        }
        return nil
    }
}
