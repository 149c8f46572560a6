/// Read access to a `YAMLTree`: raw pointers to its storage, so that reading a node costs a
/// load and an index, with no reference counting (a class reference held in a property is
/// retained around every use). Valid while the tree lives and does not grow; a decoding run
/// takes one view after building, and the context keeps the tree alive.
struct TreeView {
    typealias Record = YAMLTree.Record
    typealias Kind = YAMLTree.Kind

    let records: UnsafeMutablePointer<Record>
    let links: UnsafeMutablePointer<Int32>
    let bytes: UnsafeMutablePointer<UInt8>
    /// For the rare reads outside the storage (tags, nulls added later).
    let owner: Unmanaged<YAMLTree>

    /// A null at `mark` (see `YAMLTree.null(at:)`).
    func null(at mark: Mark) -> NodeID {
        owner.takeUnretainedValue().null(at: mark)
    }

    @inline(__always) func record(_ node: NodeID) -> Record {
        node.index >= 0 ? records[Int(node.index)] : nullRecord(node)
    }

    /// The record of a null added after building (kept out of line: reads are hot, these rare).
    @inline(never)
    private func nullRecord(_ node: NodeID) -> Record {
        owner.takeUnretainedValue().nullRecord(node)
    }

    func mark(_ node: NodeID) -> Mark { record(node).mark }
    func kind(_ node: NodeID) -> Kind { record(node).kind }
    func isScalar(_ node: NodeID) -> Bool { record(node).kind == .scalar }
    func style(_ node: NodeID) -> Node.ScalarStyle { record(node).style }

    func tag(_ node: NodeID) -> String? {
        let tag = record(node).tag
        return tag < 0 ? nil : owner.takeUnretainedValue().tags[Int(tag)]
    }

    /// A scalar's text (empty for collections).
    func string(_ node: NodeID) -> String {
        let record = record(node)
        guard record.kind == .scalar, record.count > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes + Int(record.start), count: Int(record.count)), as: UTF8.self)
    }

    /// A scalar's text, or nil for collections.
    func scalarString(_ node: NodeID) -> String? {
        isScalar(node) ? string(node) : nil
    }

    /// Elements of a sequence (count 0 for other nodes).
    func elementCount(_ node: NodeID) -> Int {
        let record = record(node)
        return record.kind == .sequence ? Int(record.count) : 0
    }

    @inline(__always) func element(_ node: NodeID, _ position: Int) -> NodeID {
        NodeID(Int(links[Int(record(node).start) + position]))
    }

    /// Pairs of a mapping (count 0 for other nodes).
    func pairCount(_ node: NodeID) -> Int {
        let record = record(node)
        return record.kind == .mapping ? Int(record.count) : 0
    }

    @inline(__always) func key(_ node: NodeID, _ position: Int) -> NodeID {
        NodeID(Int(links[Int(record(node).start) + 2 * position]))
    }

    @inline(__always) func value(_ node: NodeID, _ position: Int) -> NodeID {
        NodeID(Int(links[Int(record(node).start) + 2 * position + 1]))
    }

    /// True for a null: plain `~`, `null`, `Null`, `NULL` or empty with no tag, or `!!null`
    /// (as `Node.Scalar.isNull`).
    /// Decided when the scalar was added (`YAMLTree.Record.isNull`).
    @inline(__always)
    func isNull(_ node: NodeID) -> Bool {
        record(node).isNull
    }

    /// Whether `node` is a scalar whose text equals `text` (as `String` compares: canonical
    /// equivalence; bytes first, strings only when either side is not ASCII).
    func scalar(_ node: NodeID, equals text: String) -> Bool {
        guard isScalar(node) else { return false }
        let answer = text.utf8.withContiguousStorageIfAvailable { wanted in
            scalar(node, equalsUTF8: wanted, isASCII: Self.isASCII(wanted))
        }
        return (answer ?? nil) ?? (string(node) == text)
    }

    /// Whether the scalar `node` has the text `wanted` (UTF-8, ASCII-only if `isASCII`); nil
    /// when the bytes differ but the texts might still be canonically equivalent.
    @inline(__always)
    func scalar(_ node: NodeID, equalsUTF8 wanted: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> Bool? {
        let record = record(node)
        guard record.kind == .scalar else { return false }
        if Int(record.count) == wanted.count, Self.equal(bytes + Int(record.start), wanted) { return true }
        // Both ASCII: different bytes are different texts (a non-ASCII character may equal an
        // ASCII one, e.g. the Kelvin sign and "K").
        return record.isASCII && isASCII ? false : nil
    }

    /// FNV-1a over a scalar's bytes, for tables of keys.
    func hashOfBytes(_ node: NodeID) -> Int {
        let record = record(node)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in UnsafeBufferPointer(start: bytes + Int(record.start), count: Int(record.count)) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int(truncatingIfNeeded: hash)
    }

    /// Whether two scalars have equal text (as `String` compares).
    /// Inlined: every pair of keys of a small mapping is compared (for duplicates), and most
    /// differ in length; the comparison of strings stays out of line.
    @inline(__always)
    func scalars(_ first: NodeID, _ second: NodeID) -> Bool {
        let a = record(first), b = record(second)
        if a.count == b.count,
           Self.equal(bytes + Int(a.start), UnsafeBufferPointer(start: bytes + Int(b.start), count: Int(b.count))) {
            return true
        }
        if a.isASCII && b.isASCII { return false }
        return stringsEqual(first, second)
    }

    @inline(never)
    private func stringsEqual(_ first: NodeID, _ second: NodeID) -> Bool {
        string(first) == string(second)
    }

    /// Whether the bytes at `start` are `wanted`'s (short texts: a plain loop beats a call).
    @inline(__always)
    private static func equal(_ start: UnsafePointer<UInt8>, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < wanted.count {
            if start[index] != wanted[index] { return false }
            index += 1
        }
        return true
    }

    /// Whether every byte is ASCII (a loop the compiler vectorizes and inlines).
    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var all: UInt8 = 0
        for byte in bytes { all |= byte }
        return all < 0x80
    }

    /// Whether `node` is a scalar with exactly the bytes `wanted`.
    @inline(__always)
    func scalar(_ node: NodeID, hasBytes wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        let record = record(node)
        return record.kind == .scalar && Int(record.count) == wanted.count && Self.equal(bytes + Int(record.start), wanted)
    }

    private func hasBytes(_ record: Record, _ text: StaticString) -> Bool {
        text.withUTF8Buffer { Int(record.count) == $0.count && Self.equal(bytes + Int(record.start), $0) }
    }

    /// A plain `<<` key (or one tagged `!!merge`).
    func isMergeKey(_ node: NodeID) -> Bool {
        let record = record(node)
        guard record.kind == .scalar, record.count == 2, hasBytes(record, "<<") else { return false }
        if record.tag >= 0 { return owner.takeUnretainedValue().tags[Int(record.tag)] == Node.Tags.merge }
        return record.style == .plain
    }

    /// A short description for messages: `null`, `'text'`, `a sequence`, `a mapping`.
    func kindDescription(_ node: NodeID) -> String {
        switch kind(node) {
        case .scalar:
            if isNull(node) { return "null" }
            return Node.describeScalar(string(node))
        case .sequence: return "a sequence"
        case .mapping: return "a mapping"
        }
    }
}
