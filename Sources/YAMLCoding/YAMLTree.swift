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
        /// What was found out about a scalar while it was added, one bit each (the record stays
        /// 32 bytes): see `isASCII`, `hasDollar`, `isNull`.
        private var flags: UInt8

        init(mark: Mark, start: Int32, count: Int32, tag: Int32, kind: Kind, style: Node.ScalarStyle,
             isASCII: Bool, hasDollar: Bool = false, isNull: Bool = false) {
            self.mark = mark
            self.start = start
            self.count = count
            self.tag = tag
            self.kind = kind
            self.style = style
            flags = (isASCII ? 1 : 0) | (hasDollar ? 2 : 0) | (isNull ? 4 : 0)
        }

        /// All of the scalar's bytes are ASCII (then byte equality is string equality).
        var isASCII: Bool { flags & 1 != 0 }
        /// The scalar has a `$` (found while copying it): only then can it hold a `${VAR}`.
        var hasDollar: Bool { flags & 2 != 0 }
        /// The scalar is a null: plain `~`, `null`, `Null`, `NULL` or empty with no tag, or
        /// tagged `!!null` (as `Node.Scalar.isNull`).
        var isNull: Bool { flags & 4 != 0 }
    }

    // Raw storage, grown by hand: the hot reads are a pointer load and an index, without the
    // retain, bounds check or exclusivity check an array property of a class costs. Unchecked
    // exclusivity: a decoding run is single-threaded and no access spans a call that appends.
    @exclusivity(unchecked) private(set) var records: UnsafeMutablePointer<Record>
    @exclusivity(unchecked) private(set) var recordCount = 0
    @exclusivity(unchecked) private var recordCapacity: Int
    @exclusivity(unchecked) private(set) var links: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var linkCount = 0
    @exclusivity(unchecked) private var linkCapacity: Int
    @exclusivity(unchecked) private(set) var bytes: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var byteCount = 0
    @exclusivity(unchecked) private var byteCapacity: Int
    /// The children of the collections being built, innermost last (see `push`).
    @exclusivity(unchecked) private var pending: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private(set) var pendingCount = 0
    @exclusivity(unchecked) private var pendingCapacity = 64
    var tags: [String] = []
    /// The node of each entry of `tags`, so that tags can be checked without visiting every node.
    private(set) var taggedNodes: [NodeID] = []
    /// Nulls made after the fact (stand-ins, missing values): kept apart, with negative ids,
    /// so that the main storage never moves once built and views of it stay valid.
    private var nulls: [Record] = []

    /// An empty tree; `byteCapacity` is a guess at the scalar text's size (the file's size).
    init(byteCapacity: Int = 0) {
        self.byteCapacity = max(16, byteCapacity)
        bytes = .allocate(capacity: self.byteCapacity)
        // About one node per 20 to 40 bytes of a typical file (grown when more come), one link
        // per node: a larger guess costs page faults on memory never used.
        recordCapacity = max(16, byteCapacity / 16)
        records = .allocate(capacity: recordCapacity)
        linkCapacity = recordCapacity
        links = .allocate(capacity: linkCapacity)
        pending = .allocate(capacity: pendingCapacity)
    }

    deinit {
        records.deinitialize(count: recordCount)
        records.deallocate()
        links.deallocate()
        bytes.deallocate()
        pending.deallocate()
    }

    /// The tree as it stands, for reading: valid until the next scalar or collection is added
    /// (nulls may be added at any time).
    var view: TreeView {
        TreeView(records: records, links: links, bytes: bytes, owner: Unmanaged.passUnretained(self))
    }

    /// The record of a null added by `null(at:)`.
    func nullRecord(_ node: NodeID) -> Record {
        nulls[Int(-1 - node.index)]
    }

    // MARK: - Building

    /// Appends a scalar.
    func addScalar(_ text: UnsafeBufferPointer<UInt8>, style: Node.ScalarStyle, tag: String?, mark: Mark) -> NodeID {
        let start = byteCount
        if byteCount + text.count > byteCapacity {
            Self.grow(&bytes, count: byteCount, capacity: &byteCapacity, needed: byteCount + text.count)
        }
        let (isASCII, hasDollar) = text.baseAddress.map { Self.copyChecking($0, to: bytes + start, count: text.count) } ?? (true, false)
        byteCount += text.count
        let isNull = if let tag { tag == Node.Tags.null } else { style == .plain && Self.isNullText(bytes + start, count: text.count) }
        return add(Record(mark: mark, start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: text.count),
                          tag: tagIndex(tag), kind: .scalar, style: style, isASCII: isASCII, hasDollar: hasDollar, isNull: isNull))
    }

    /// Whether an untagged plain scalar's text spells null: nothing, `~`, `null`, `Null`, `NULL`.
    @inline(__always)
    private static func isNullText(_ text: UnsafePointer<UInt8>, count: Int) -> Bool {
        func spells(_ word: StaticString) -> Bool {
            word.withUTF8Buffer { word in (0..<4).allSatisfy { text[$0] == word[$0] } }
        }
        switch count {
        case 0: return true
        case 1: return text[0] == UInt8(ascii: "~")
        case 4: return spells("null") || spells("Null") || spells("NULL")
        default: return false
        }
    }

    /// Copies `count` bytes and tells whether they are all ASCII and whether one is a `$`, in
    /// one pass of eight bytes at a time: most scalars are short, and a call to `memmove`, then
    /// a pass for ASCII and one per decoded value for `$`, cost more.
    @inline(__always)
    private static func copyChecking(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) -> (isASCII: Bool, hasDollar: Bool) {
        let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(target)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let dollars = UInt64(UInt8(ascii: "$")) &* ones
        var all: UInt64 = 0
        var dollar = false
        var index = 0
        while index + 8 <= count {
            let word = from.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            to.storeBytes(of: word, toByteOffset: index, as: UInt64.self)
            all |= word
            // `word ^ dollars` has a zero byte exactly where `word` has a `$`.
            let match = word ^ dollars
            dollar = dollar || (match &- ones) & ~match & highs != 0
            index += 8
        }
        while index < count {
            let byte = source[index]
            target[index] = byte
            all |= UInt64(byte)
            dollar = dollar || byte == UInt8(ascii: "$")
            index += 1
        }
        return (all & highs == 0, dollar)
    }

    /// Appends a collection whose children (ids; key, value alternating for mappings) are `children`.
    func addCollection(_ kind: Kind, children: UnsafeBufferPointer<Int32>, tag: String?, mark: Mark) -> NodeID {
        let start = linkCount
        if linkCount + children.count > linkCapacity {
            Self.grow(&links, count: linkCount, capacity: &linkCapacity, needed: linkCount + children.count)
        }
        if let base = children.baseAddress { (links + linkCount).update(from: base, count: children.count) }
        linkCount += children.count
        let count = kind == .mapping ? children.count / 2 : children.count
        return add(Record(mark: mark, start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: count),
                          tag: tagIndex(tag), kind: kind, style: .plain, isASCII: true))
    }

    /// Adds a child to the innermost collection being built (key, value alternating in mappings).
    func push(_ node: NodeID) {
        if pendingCount == pendingCapacity {
            Self.grow(&pending, count: pendingCount, capacity: &pendingCapacity, needed: pendingCount + 1)
        }
        pending[pendingCount] = node.index
        pendingCount += 1
    }

    /// The children pushed since `first`: valid until the next `push`.
    func pendingChildren(from first: Int) -> UnsafeBufferPointer<Int32> {
        UnsafeBufferPointer(start: pending + first, count: pendingCount - first)
    }

    /// Drops the children pushed since `first` (their collection is built).
    func dropPending(from first: Int) {
        pendingCount = first
    }

    /// An empty plain scalar (a null) at `mark`: missing values, stand-ins, empty documents.
    func null(at mark: Mark) -> NodeID {
        nulls.append(Record(mark: mark, start: 0, count: 0, tag: -1, kind: .scalar, style: .plain, isASCII: true, isNull: true))
        return NodeID(-nulls.count)
    }

    @inline(__always) // once per node: the call cost more than the body
    private func add(_ record: Record) -> NodeID {
        if recordCount == recordCapacity {
            Self.grow(&records, count: recordCount, capacity: &recordCapacity, needed: recordCount + 1)
        }
        (records + recordCount).initialize(to: record)
        recordCount += 1
        return NodeID(recordCount - 1)
    }

    /// Moves `count` elements to a buffer of at least twice the capacity (and `needed`).
    private static func grow<T>(_ buffer: inout UnsafeMutablePointer<T>, count: Int, capacity: inout Int, needed: Int) {
        let newCapacity = max(needed, 2 * capacity)
        let grown = UnsafeMutablePointer<T>.allocate(capacity: newCapacity)
        grown.moveInitialize(from: buffer, count: count)
        buffer.deallocate()
        buffer = grown
        capacity = newCapacity
    }

    @inline(__always) // once per node, and almost every node has no tag
    private func tagIndex(_ tag: String?) -> Int32 {
        guard let tag else { return -1 }
        tags.append(tag)
        // Called just before `add`, which gives the record this id.
        taggedNodes.append(NodeID(recordCount))
        return Int32(truncatingIfNeeded: tags.count - 1)
    }
}
