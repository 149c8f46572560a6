/// A mapping's `MappingUse` shared by the keyed containers of one decoding attempt (a class
/// and its superclass each ask about their own keys of the same mapping).
final class MappingState {
    /// Unchecked exclusivity for the reason given at `NodeReader.mappingUse`.
    @exclusivity(unchecked) var use: MappingUse
    /// Who opened the container: the frame root (whose path is known at report time), or a
    /// nested decoder with its own path.
    enum Opener {
        case root
        case nested(CodingPathLink?)
    }

    let opener: Opener

    let tree: TreeView

    init(_ mapping: NodeID, count: Int, tree: TreeView, opener: Opener, recordsQueries: Bool = false) {
        use = MappingUse(mapping, count: count, recordsQueries: recordsQueries)
        self.tree = tree
        self.opener = opener
    }

    var mapping: NodeID { use.mapping }
    var count: Int { use.count }
    var allUsed: Bool { use.allUsed }

    /// The index of the pair with this key, marking it used; records absent keys.
    func lookUp(_ key: String) -> Int? { use.lookUp(key, in: tree) }

    /// Marks a pair used without a lookup.
    func markUsed(_ position: Int) { use.markUsed(position) }

    /// An error for every key nobody asked about, with a suggestion where one is close.
    func unknownKeyErrors(_ context: DecodingContext, rootPath: @autoclosure () -> CodingPathLink?) -> [YAMLError] {
        guard !use.allUsed else { return [] }
        switch opener {
        case .root: return use.unknownKeyErrors(context, path: rootPath())
        case .nested(let path): return use.unknownKeyErrors(context, path: path)
        }
    }
}
