/// Typed access to one node for `YAMLNodeDecodable.init(yaml:)`: the node's own value, the
/// values of a mapping's keys, with positions and coding paths for errors.
///
/// Failures of children are recorded, not thrown (see `YAMLNodeDecodable`), so one reading
/// pass finds every error of a value. Not Sendable: it belongs to one decoding run.
public final class NodeReader {
    /// The node being read (a copy of it: prefer `mark` and the typed reads).
    public var node: Node { tree.node(id) }
    /// The node being read, in the decoding run's tree. Variables below change only when the
    /// context reuses the reader (`reuse`), never during a read: unchecked exclusivity, as for
    /// `mappingUse`.
    @exclusivity(unchecked) private(set) var id: NodeID
    let context: DecodingContext
    /// The context's tree (every key read goes through it).
    let tree: TreeView
    /// True for a stand-in: every key reads as missing, every value as its stand-in, no errors.
    let isStandIn: Bool
    @exclusivity(unchecked) private var parentPath: CodingPathLink?
    /// The reader of the enclosing value when this one is read on its behalf: the path is then
    /// built from the parent's only when asked (most values never need it), instead of a link
    /// per nested value. Unowned: the parent's read outlasts this one's, and a reader that
    /// outlives it (kept by its value) is detached first (`detach`).
    @exclusivity(unchecked) private unowned(unsafe) var parentReader: NodeReader?
    @exclusivity(unchecked) private var key: PathKey
    /// `path` once built (nil: not yet): most values never need their path.
    @exclusivity(unchecked) private var builtPath: CodingPathLink??
    /// The keys asked about, set by `expectMapping` (kept inline: one allocation per value).
    /// Unchecked exclusivity: every key read mutates it, the dynamic check cost more than the
    /// read, and nothing can overlap (the reader is not Sendable and calls out to nothing while
    /// the use is being changed).
    @exclusivity(unchecked) var mappingUse: MappingUse
    /// Set for the extra reading pass that records absent keys, for "did you mean" suggestions.
    let recordsQueries: Bool

    init(node: NodeID, context: DecodingContext, parentPath: CodingPathLink?, parentReader: NodeReader? = nil, key: PathKey,
         recordsQueries: Bool = false) {
        id = node
        self.context = context
        tree = context.tree
        self.parentPath = parentPath
        self.parentReader = parentReader
        self.key = key
        self.recordsQueries = recordsQueries
        isStandIn = false
        mappingUse = MappingUse(unread: node)
    }

    /// A reader that produces a stand-in value (lenient: nothing fails, nothing is present).
    init(standInAt mark: Mark, context: DecodingContext, parentPath: CodingPathLink?, key: PathKey = .none) {
        id = context.tree.null(at: mark)
        self.context = context
        tree = context.tree
        self.parentPath = parentPath
        self.key = key
        recordsQueries = false
        isStandIn = true
        mappingUse = MappingUse(unread: id)
    }

    /// Reads `node` next, as if just made for it: the context reuses readers it alone holds
    /// (`DecodingContext.recycle`), one object per value having been a large part of decoding.
    func reuse(node: NodeID, parentPath: CodingPathLink?, parentReader: NodeReader?, key: PathKey) {
        id = node
        self.parentPath = parentPath
        self.parentReader = parentReader
        self.key = key
        builtPath = nil
        mappingUse = MappingUse(unread: node)
    }

    /// The keys leading to this node, as links (built on first use).
    var path: CodingPathLink? {
        if let builtPath { return builtPath }
        let base = if let parentReader { parentReader.path } else { parentPath }
        let built = base.appending(key)
        builtPath = .some(built)
        return built
    }

    /// Makes the path independent of the parent reader (built now, while the parent still reads
    /// the enclosing value), for a reader that its value keeps beyond the parent's read.
    func detach() {
        guard parentReader != nil else { return }
        _ = path
        parentReader = nil
    }

    /// Where the node starts.
    public var mark: Mark { tree.mark(id) }

    /// The keys (and sequence indices) leading to this node, as in `YAMLError.codingPath`.
    public var codingPath: [String] { path.strings }

    /// The node's own value as `T` (e.g. a sequence as `[Item]`). On failure the errors are
    /// recorded and a stand-in is returned; throws only when even the stand-in fails.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if isStandIn { return try context.standIn(T.self, at: mark, parentPath: path, key: nil) }
        do {
            return try context.decodeAny(T.self, node: id, parentPath: path, key: .none)
        } catch {
            context.pendingErrors += error.errors
            return try context.standIn(T.self, at: mark, parentPath: path, key: nil)
        }
    }

    /// Records an error at `mark` (this node's path); the value then fails, after the rest of
    /// it was read. For problems the types alone cannot express.
    public func recordError(_ message: String, at mark: Mark) {
        guard !isStandIn else { return }
        context.pendingErrors.append(context.error(at: mark, message, path: path))
    }
}
