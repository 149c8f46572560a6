/// A node of a `YAMLTree`: an index into its records. Copying one is copying a number, which
/// is the point: decoding passes nodes around constantly, and `Node` values (strings and
/// arrays inside) cost a retain and a release per copy.
struct NodeID: Hashable {
    let index: Int32

    init(_ index: Int) { self.index = Int32(truncatingIfNeeded: index) }
}

/// The nodes of one YAML stream, stored flat: one array of records, the children of every
/// collection as runs of ids in one array, the text of every scalar in one byte buffer (a
/// `String` is made only when a decoder asks for the value). No object per node, so building,
/// reading and freeing a tree cost a few allocations instead of one per collection and string.
///
/// Aliases share the anchored node's id (the tree is read-only once built). Not Sendable: it
/// belongs to one decoding run.
final class YAMLTree {
    enum Kind: UInt8 {
        case scalar, sequence, mapping
    }

    struct Record {
        var mark: Mark
        /// Scalars: the first byte in `bytes`; collections: the first id in `links`.
        var start: Int32
        /// Scalars: the length in bytes; sequences: elements; mappings: pairs (2 ids each).
        var count: Int32
        /// Index into `tags`, or -1.
        var tag: Int32
        var kind: Kind
        var style: Node.ScalarStyle
        /// All of the scalar's bytes are ASCII (then byte equality is string equality).
        var isASCII: Bool
    }

    // Unchecked exclusivity: the arrays are read on every node access, a decoding run is
    // single-threaded, and no access spans a call that could append to them.
    @exclusivity(unchecked) var records: [Record] = []
    @exclusivity(unchecked) var links: [Int32] = []
    @exclusivity(unchecked) var bytes: [UInt8] = []
    var tags: [String] = []

    init(byteCapacity: Int = 0) {
        bytes.reserveCapacity(byteCapacity)
    }

    // MARK: - Reading

    @inline(__always) func record(_ node: NodeID) -> Record { records[Int(node.index)] }
    func mark(_ node: NodeID) -> Mark { record(node).mark }
    func kind(_ node: NodeID) -> Kind { record(node).kind }
    func isScalar(_ node: NodeID) -> Bool { record(node).kind == .scalar }
    func style(_ node: NodeID) -> Node.ScalarStyle { record(node).style }

    func tag(_ node: NodeID) -> String? {
        let tag = record(node).tag
        return tag < 0 ? nil : tags[Int(tag)]
    }

    /// A scalar's text (empty for collections).
    func string(_ node: NodeID) -> String {
        let record = record(node)
        guard record.kind == .scalar, record.count > 0 else { return "" }
        return bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(record.start)..<Int(record.start + record.count)]), as: UTF8.self)
        }
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

    func element(_ node: NodeID, _ position: Int) -> NodeID {
        NodeID(Int(links[Int(record(node).start) + position]))
    }

    /// Pairs of a mapping (count 0 for other nodes).
    func pairCount(_ node: NodeID) -> Int {
        let record = record(node)
        return record.kind == .mapping ? Int(record.count) : 0
    }

    func key(_ node: NodeID, _ position: Int) -> NodeID {
        NodeID(Int(links[Int(record(node).start) + 2 * position]))
    }

    func value(_ node: NodeID, _ position: Int) -> NodeID {
        NodeID(Int(links[Int(record(node).start) + 2 * position + 1]))
    }

    /// True for a null: plain `~`, `null`, `Null`, `NULL` or empty with no tag, or `!!null`
    /// (as `Node.Scalar.isNull`).
    func isNull(_ node: NodeID) -> Bool {
        let record = record(node)
        guard record.kind == .scalar else { return false }
        if record.tag >= 0 { return tags[Int(record.tag)] == Node.Tags.null }
        guard record.style == .plain else { return false }
        switch record.count {
        case 0: return true
        case 1: return bytes[Int(record.start)] == UInt8(ascii: "~")
        case 4: return hasBytes(record, "null") || hasBytes(record, "Null") || hasBytes(record, "NULL")
        default: return false
        }
    }

    /// Whether `node` is a scalar whose text equals `text` (as `String` compares: canonical
    /// equivalence; bytes first, strings only when either side is not ASCII).
    func scalar(_ node: NodeID, equals text: String) -> Bool {
        let record = record(node)
        guard record.kind == .scalar else { return false }
        let result = text.utf8.withContiguousStorageIfAvailable { wanted -> Bool in
            if wanted.count == Int(record.count), bytesEqual(record, wanted) { return true }
            if record.isASCII, wanted.allSatisfy({ $0 < 0x80 }) { return false }
            return string(node) == text
        }
        return result ?? (string(node) == text)
    }

    /// Whether two scalars have equal text (as `String` compares).
    func scalars(_ first: NodeID, _ second: NodeID) -> Bool {
        let a = record(first), b = record(second)
        if a.count == b.count {
            let equal = bytes.withUnsafeBufferPointer { buffer in
                UnsafeBufferPointer(rebasing: buffer[Int(a.start)..<Int(a.start + a.count)])
                    .elementsEqual(UnsafeBufferPointer(rebasing: buffer[Int(b.start)..<Int(b.start + b.count)]))
            }
            if equal { return true }
        }
        if a.isASCII && b.isASCII { return false }
        return string(first) == string(second)
    }

    private func hasBytes(_ record: Record, _ text: StaticString) -> Bool {
        text.withUTF8Buffer { bytesEqual(record, $0) }
    }

    private func bytesEqual(_ record: Record, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard wanted.count == Int(record.count) else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            UnsafeBufferPointer(rebasing: buffer[Int(record.start)..<Int(record.start + record.count)]).elementsEqual(wanted)
        }
    }

    /// A plain `<<` key (or one tagged `!!merge`).
    func isMergeKey(_ node: NodeID) -> Bool {
        let record = record(node)
        guard record.kind == .scalar, record.count == 2, hasBytes(record, "<<") else { return false }
        if record.tag >= 0 { return tags[Int(record.tag)] == Node.Tags.merge }
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

    // MARK: - Building

    /// Appends a scalar.
    func addScalar(_ text: UnsafeBufferPointer<UInt8>, style: Node.ScalarStyle, tag: String?, mark: Mark) -> NodeID {
        let start = bytes.count
        bytes.append(contentsOf: text)
        let isASCII = text.allSatisfy { $0 < 0x80 }
        return add(Record(mark: mark, start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: text.count),
                          tag: tagIndex(tag), kind: .scalar, style: style, isASCII: isASCII))
    }

    /// Appends a collection whose children (ids; key, value alternating for mappings) are `children`.
    func addCollection(_ kind: Kind, children: some Collection<Int32>, tag: String?, mark: Mark) -> NodeID {
        let start = links.count
        links.append(contentsOf: children)
        let count = kind == .mapping ? children.count / 2 : children.count
        return add(Record(mark: mark, start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: count),
                          tag: tagIndex(tag), kind: kind, style: .plain, isASCII: true))
    }

    /// An empty plain scalar (a null) at `mark`: missing values, stand-ins, empty documents.
    func null(at mark: Mark) -> NodeID {
        add(Record(mark: mark, start: 0, count: 0, tag: -1, kind: .scalar, style: .plain, isASCII: true))
    }

    private func add(_ record: Record) -> NodeID {
        records.append(record)
        return NodeID(records.count - 1)
    }

    private func tagIndex(_ tag: String?) -> Int32 {
        guard let tag else { return -1 }
        tags.append(tag)
        return Int32(truncatingIfNeeded: tags.count - 1)
    }
}
