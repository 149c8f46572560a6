/// A node of a `YAMLTree`: an index into its records. Copying one is copying a number, which
/// is the point: decoding passes nodes around constantly, and `Node` values (strings and
/// arrays inside) cost a retain and a release per copy.
@usableFromInline
struct NodeID: Hashable {
    let index: Int32

    init(_ index: Int) { self.index = Int32(truncatingIfNeeded: index) }
}
