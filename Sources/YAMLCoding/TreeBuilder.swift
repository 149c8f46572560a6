internal import CYAML

/// Builds a `YAMLTree` straight from libyaml events: resolves aliases (with a cap against
/// alias bombs), applies merge keys and reports duplicate keys.
struct TreeBuilder {
    /// Options that differ between configuration files and the conformance suite.
    struct Options {
        /// Apply `<<` merge keys (a YAML 1.1 extension; off for pure YAML 1.2).
        var mergeKeys = true
        /// Most nodes that aliases may copy in one stream: beyond it, an alias bomb is assumed.
        var aliasExpansionLimit = 100_000
        /// Most collections open inside each other (see `YAMLDecoder.maximumNestingDepth`).
        var maximumNestingDepth = YAMLDecoder.defaultMaximumNestingDepth
        /// Most bytes of text (see `YAMLDecoder.maximumFileSize`).
        var maximumFileSize = YAMLDecoder.defaultMaximumFileSize
    }

    /// A collection whose end event has not come yet. Plain data (its rare tag and anchor are
    /// in `openNames`), so the stack is pushed and popped without reference counting.
    private struct Open {
        var isMapping: Bool
        var mark: Mark
        /// Whether its tag and anchor are the last entry of `openNames`.
        var hasNames: Bool
        /// Where its children start among the tree's pending children.
        var firstChild: Int
        /// The enclosing collection's `openSize` when this one started (restored at its end).
        var parentSize: Int
    }

    let options: Options
    let source: SourceFile
    /// The nodes built so far.
    let tree: YAMLTree
    private var stack: [Open] = []
    /// The tags and anchors of the open collections that have either, innermost last.
    private var openNames: [(tag: String?, anchor: String?)] = []
    /// Nodes in the innermost open collection's subtree so far, itself included: the cost of
    /// aliasing it. Kept out of `stack`, which would otherwise be written (a uniqueness check
    /// and a bounds check) for every node.
    private var openSize = 1
    private var anchors: [String: (node: NodeID, size: Int)] = [:]
    private var expanded = 0
    private var root: NodeID?
    /// The documents of the stream, in order.
    private(set) var documents: [NodeID] = []
    /// Problems that leave the tree usable (duplicate keys, bad merges), for the decoder to add.
    var problems: [YAMLError] = []

    init(source: SourceFile, options: Options = Options()) {
        self.source = source
        self.options = options
        tree = YAMLTree(byteCapacity: source.text.utf8.count)
    }

    /// Parses the whole text into documents; syntax errors and alias problems throw.
    static func build(_ text: String, file: String, options: Options = Options()) throws(YAMLErrors) -> TreeBuilder {
        if text.utf8.count > options.maximumFileSize {
            let source = SourceFile(name: file, text: text)
            throw YAMLErrors([source.error(at: source.mark(atByteOffset: options.maximumFileSize),
                                           "file larger than \(options.maximumFileSize) bytes")])
        }
        // The tree's offsets are 32-bit.
        guard text.utf8.count < Int(Int32.max) else {
            throw YAMLErrors([YAMLError(file: file, mark: Mark(line: 1, column: 1), message: "the file is too large for a YAML file here (2 GB or more)")])
        }
        let parser = try EventParser(text: text, file: file)
        var builder = TreeBuilder(source: parser.source, options: options)
        while let event = try parser.next() {
            try builder.handle(event)
        }
        return builder
    }

    private mutating func handle(_ event: UnsafeMutablePointer<yaml_event_t>) throws(YAMLErrors) {
        // The mark is converted only where it is used (not for the end of a collection).
        var mark: Mark { Mark(event.pointee.start_mark) }
        switch event.pointee.type {
        case YAML_DOCUMENT_START_EVENT:
            anchors.removeAll(keepingCapacity: true)
            root = nil
        case YAML_DOCUMENT_END_EVENT:
            documents.append(root ?? tree.null(at: mark))
            root = nil
        case YAML_SCALAR_EVENT:
            let data = event.pointee.data.scalar
            let node = tree.addScalar(UnsafeBufferPointer(start: data.value, count: data.length), style: Self.style(data.style),
                                      tag: Self.string(data.tag), mark: mark)
            if let anchor = Self.string(data.anchor) { anchors[anchor] = (node, 1) }
            add(node, size: 1)
        case YAML_SEQUENCE_START_EVENT:
            let data = event.pointee.data.sequence_start
            try open(isMapping: false, mark: mark, tag: data.tag, anchor: data.anchor)
        case YAML_MAPPING_START_EVENT:
            let data = event.pointee.data.mapping_start
            try open(isMapping: true, mark: mark, tag: data.tag, anchor: data.anchor)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            // Not `popLast()`: an optional `Open` is destroyed through generic code, per collection.
            guard !stack.isEmpty else { return }
            let open = stack.removeLast()
            let size = openSize
            openSize = open.parentSize
            let names = open.hasNames ? openNames.removeLast() : (tag: nil, anchor: nil)
            let node: NodeID
            if open.isMapping {
                node = finishMapping(from: open.firstChild, tag: names.tag, mark: open.mark)
            } else {
                node = tree.addCollection(.sequence, children: tree.pendingChildren(from: open.firstChild), tag: names.tag, mark: open.mark)
            }
            tree.dropPending(from: open.firstChild)
            if let anchor = names.anchor { anchors[anchor] = (node, size) }
            add(node, size: size)
        case YAML_ALIAS_EVENT:
            let name = Self.string(event.pointee.data.alias.anchor) ?? ""
            guard let target = anchors[name] else {
                let inProgress = openNames.contains { $0.anchor == name }
                throw YAMLErrors([source.error(at: mark, inProgress
                    ? "alias '*\(name)' refers to the collection that contains it"
                    : "unknown alias '*\(name)' (no anchor '&\(name)' before it)")])
            }
            expanded += target.size
            guard expanded <= options.aliasExpansionLimit else {
                throw YAMLErrors([source.error(at: mark,
                    "aliases expand to more than \(options.aliasExpansionLimit) nodes (alias bomb?)")])
            }
            add(target.node, size: target.size)
        default:
            break
        }
    }

    /// Starts a collection (its children come next).
    ///
    /// The depth is checked here, on events, and that is soon enough: libyaml's scanner runs
    /// ahead of the events only while the next token may still be a simple key, which ends
    /// 1024 characters later or at a line break. So when the limit is hit the scanner is at
    /// most 1024 flow levels deeper, and its cost per token (a walk over one entry per flow
    /// level) stays bounded: a million `[` are refused after reading about 1,300 of them.
    private mutating func open(isMapping: Bool, mark: Mark, tag: UnsafeMutablePointer<yaml_char_t>?,
                               anchor: UnsafeMutablePointer<yaml_char_t>?) throws(YAMLErrors) {
        guard stack.count < options.maximumNestingDepth else {
            throw YAMLErrors([source.error(at: mark, "nesting deeper than \(options.maximumNestingDepth) levels")])
        }
        let hasNames = tag != nil || anchor != nil
        if hasNames { openNames.append((Self.string(tag), Self.string(anchor))) }
        stack.append(Open(isMapping: isMapping, mark: mark, hasNames: hasNames, firstChild: tree.pendingCount, parentSize: openSize))
        openSize = 1
    }

    private mutating func add(_ node: NodeID, size: Int) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        openSize += size
        tree.push(node)
    }

    // MARK: - Conversions

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: UnsafePointer(pointer))
    }

    private static func style(_ style: yaml_scalar_style_t) -> Node.ScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }
}
