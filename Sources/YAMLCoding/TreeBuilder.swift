internal import CYAML

/// Builds `Node` trees straight from libyaml events: resolves aliases (with a cap against
/// alias bombs), applies merge keys and reports duplicate keys.
struct TreeBuilder {
    /// Options that differ between configuration files and the conformance suite.
    struct Options {
        /// Apply `<<` merge keys (a YAML 1.1 extension; off for pure YAML 1.2).
        var mergeKeys = true
        /// Most nodes that aliases may copy in one stream: beyond it, an alias bomb is assumed.
        var aliasExpansionLimit = 100_000
    }

    /// A collection whose end event has not come yet.
    private struct Open {
        var isMapping: Bool
        var mark: Mark
        var tag: String?
        var anchor: String?
        var elements: [Node] = []
        var pairs: [Node.Pair] = []
        var pendingKey: Node?
        /// Nodes in this subtree so far, itself included: the cost of aliasing it.
        var size = 1
    }

    let options: Options
    let source: SourceFile
    private var stack: [Open] = []
    private var anchors: [String: (node: Node, size: Int)] = [:]
    private var expanded = 0
    private var root: Node?
    /// The documents of the stream, in order.
    private(set) var documents: [Node] = []
    /// Problems that leave the tree usable (duplicate keys, bad merges), for the decoder to add.
    var problems: [YAMLError] = []

    init(source: SourceFile, options: Options = Options()) {
        self.source = source
        self.options = options
    }

    /// Parses the whole text into documents; syntax errors and alias problems throw.
    static func build(_ text: String, file: String, options: Options = Options()) throws(YAMLErrors) -> TreeBuilder {
        let parser = try EventParser(text: text, file: file)
        var builder = TreeBuilder(source: parser.source, options: options)
        while let event = try parser.next() {
            try builder.handle(event)
        }
        return builder
    }

    private mutating func handle(_ event: UnsafeMutablePointer<yaml_event_t>) throws(YAMLErrors) {
        let mark = Mark(event.pointee.start_mark)
        switch event.pointee.type {
        case YAML_DOCUMENT_START_EVENT:
            anchors.removeAll(keepingCapacity: true)
            root = nil
        case YAML_DOCUMENT_END_EVENT:
            documents.append(root ?? .scalar(Node.Scalar(value: "", mark: mark)))
            root = nil
        case YAML_SCALAR_EVENT:
            let data = event.pointee.data.scalar
            let value = String(decoding: UnsafeBufferPointer(start: data.value, count: data.length), as: UTF8.self)
            let node = Node.scalar(Node.Scalar(value: value, style: Self.style(data.style), tag: Self.string(data.tag), mark: mark))
            if let anchor = Self.string(data.anchor) { anchors[anchor] = (node, 1) }
            add(node, size: 1)
        case YAML_SEQUENCE_START_EVENT:
            let data = event.pointee.data.sequence_start
            stack.append(Open(isMapping: false, mark: mark, tag: Self.string(data.tag), anchor: Self.string(data.anchor)))
        case YAML_MAPPING_START_EVENT:
            let data = event.pointee.data.mapping_start
            stack.append(Open(isMapping: true, mark: mark, tag: Self.string(data.tag), anchor: Self.string(data.anchor)))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let open = stack.popLast() else { return }
            let node: Node = open.isMapping
                ? .mapping(Node.Mapping(finish(open.pairs), tag: open.tag, mark: open.mark))
                : .sequence(Node.Sequence(open.elements, tag: open.tag, mark: open.mark))
            if let anchor = open.anchor { anchors[anchor] = (node, open.size) }
            add(node, size: open.size)
        case YAML_ALIAS_EVENT:
            let name = Self.string(event.pointee.data.alias.anchor) ?? ""
            guard let target = anchors[name] else {
                let inProgress = stack.contains { $0.anchor == name }
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

    private mutating func add(_ node: consuming Node, size: Int) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        let top = stack.count - 1
        stack[top].size += size
        if !stack[top].isMapping {
            // One allocation for the usual short sequence instead of growing 1, 2, 4.
            if stack[top].elements.isEmpty { stack[top].elements.reserveCapacity(4) }
            stack[top].elements.append(node)
        } else if let key = stack[top].pendingKey.take() {
            if stack[top].pairs.isEmpty { stack[top].pairs.reserveCapacity(8) }
            stack[top].pairs.append(Node.Pair(key: key, value: node))
        } else {
            stack[top].pendingKey = node
        }
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
