/// The `Decoder` over one node.
///
/// The decoder made for one attempt at a value's `init(from:)` is that attempt's *frame root*:
/// it holds the calls to answer with stand-ins and the mappings whose keys must all be asked
/// about. Failures of child calls throw `CallFailure` naming the frame root. A lenient decoder
/// never fails on the data and answers with stand-ins ("" / 0 / false / nil / empty).
final class NodeDecoder: Decoder {
    let node: NodeID
    let context: DecodingContext
    let lenient: Bool
    /// The frame root when this decoder serves a nested container of another decoder's value.
    private let frameRoot: NodeDecoder?
    /// The path of the parent, plus the key of this node below it (nil: the parent's own node).
    private let parentPath: CodingPathLink?
    private let key: (any CodingKey)?
    /// Built on first use: most values never need their path.
    private lazy var builtPath: CodingPathLink? = parentPath.appending(key)

    // Frame state, used on the frame root only.
    /// Child calls that failed in an earlier attempt, now answered with stand-ins.
    var substitutes: Set<Site> = []
    /// Set for a last attempt that records absent keys, for "did you mean" suggestions.
    var recordsQueries = false
    private var firstMapping: MappingState?
    private var otherMappings: [MappingState] = []

    init(node: NodeID, parentPath: CodingPathLink?, key: (any CodingKey)?, context: DecodingContext,
         lenient: Bool = false, frameRoot: NodeDecoder? = nil) {
        self.node = node
        self.parentPath = parentPath
        self.key = key
        self.context = context
        self.lenient = lenient
        self.frameRoot = frameRoot
    }

    /// The frame root this decoder belongs to.
    var frame: NodeDecoder { frameRoot ?? self }

    var path: CodingPathLink? { builtPath }
    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let tree = context.tree
        let count: Int
        if tree.kind(node) == .mapping {
            count = tree.pairCount(node)
        } else if lenient || (parentPath == nil && key == nil && tree.isNull(node)) {
            // Lenient mode, or an empty document: no keys at all.
            count = 0
        } else {
            throw NodeProblem(error: context.error(at: tree.mark(node), "expected a mapping, found \(tree.kindDescription(node))", path: path))
        }
        let state = lenient ? MappingState(node, count: count, tree: tree, opener: .root)
            : frame.state(for: node, count: count, opener: frameRoot == nil ? .root : .nested(path))
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, state: state))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let tree = context.tree
        if tree.kind(node) == .sequence {
            return UnkeyedContainer(decoder: self, count: tree.elementCount(node))
        }
        guard !lenient else { return UnkeyedContainer(decoder: self, count: 0) }
        throw NodeProblem(error: context.error(at: tree.mark(node), "expected a sequence, found \(tree.kindDescription(node))", path: path))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    // MARK: - Frame state

    /// The state of `mapping` in this attempt, shared by every container opened on it (a class
    /// and its superclass each ask about their own keys of the same mapping).
    private func state(for mapping: NodeID, count: Int, opener: MappingState.Opener) -> MappingState {
        let tree = context.tree
        guard let firstMapping else {
            let state = MappingState(mapping, count: count, tree: tree, opener: opener, recordsQueries: recordsQueries)
            firstMapping = state
            return state
        }
        // The same mapping: the same node, or one at the same place with as many pairs (a
        // stand-in null read as an empty mapping).
        let mark = tree.mark(mapping)
        if let existing = ([firstMapping] + otherMappings).first(where: { $0.mapping == mapping || (tree.mark($0.mapping) == mark && $0.count == count) }) {
            return existing
        }
        let state = MappingState(mapping, count: count, tree: tree, opener: opener, recordsQueries: recordsQueries)
        otherMappings.append(state)
        return state
    }

    /// Unknown keys in every mapping opened during the attempt.
    func unknownKeyErrors() -> [YAMLError] {
        guard let firstMapping else { return [] }
        var errors = firstMapping.unknownKeyErrors(context, rootPath: path)
        for state in otherMappings { errors += state.unknownKeyErrors(context, rootPath: path) }
        return errors
    }

    /// Whether any mapping opened during the attempt has keys nobody asked about.
    var hasUnknownKeys: Bool {
        guard let firstMapping else { return false }
        return !firstMapping.allUsed || otherMappings.contains { !$0.allUsed }
    }

    // MARK: - Nested containers

    /// A decoder for a node inside this decoder's own value (nested containers, super decoders).
    func nestedDecoder(for child: NodeID?, key: any CodingKey, missingIn mapping: Mark, wants kind: String?) throws -> NodeDecoder {
        let tree = context.tree
        guard !lenient else {
            return NodeDecoder(node: tree.null(at: mapping), parentPath: path, key: key, context: context, lenient: true)
        }
        let site = Site(path.appending(key), NodeDecoder.self)
        if !frame.substitutes.isEmpty, frame.substitutes.contains(site) {
            return NodeDecoder(node: tree.null(at: child.map(tree.mark) ?? mapping), parentPath: path, key: key, context: context, lenient: true)
        }
        let frameID = ObjectIdentifier(frame)
        guard let child else {
            if kind == nil {
                return NodeDecoder(node: tree.null(at: mapping), parentPath: path, key: key, context: context, frameRoot: frame)
            }
            throw CallFailure(frame: frameID, site: site,
                              errors: [context.error(at: mapping, "missing required key '\(key.stringValue)'", path: path.appending(key))])
        }
        if let kind {
            let matches = switch tree.kind(child) {
            case .mapping: kind == "a mapping"
            case .sequence: kind == "a sequence"
            case .scalar: false
            }
            guard matches else {
                throw CallFailure(frame: frameID, site: site,
                                  errors: [context.error(at: tree.mark(child), "expected \(kind), found \(tree.kindDescription(child))", path: path.appending(key))])
            }
        }
        return NodeDecoder(node: child, parentPath: path, key: key, context: context, frameRoot: frame)
    }
}

extension Node {
    /// A null standing in for a missing value.
    static func null(at mark: Mark) -> Node {
        .scalar(Node.Scalar(value: "", mark: mark))
    }
}
