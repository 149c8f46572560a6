extension YAMLTree {
    /// A tree holding `node` (for decoding a value that was parsed before), and its id.
    static func holding(_ node: Node) -> (tree: YAMLTree, root: NodeID) {
        let tree = YAMLTree()
        let root = tree.append(node)
        return (tree, root)
    }

    private func append(_ node: Node) -> NodeID {
        switch node {
        case .scalar(let scalar):
            var text = scalar.value
            return text.withUTF8 { addScalar($0, style: scalar.style, tag: scalar.tag, mark: scalar.mark) }
        case .sequence(let sequence):
            let children = sequence.elements.map { append($0).index }
            return children.withUnsafeBufferPointer { addCollection(.sequence, children: $0, tag: sequence.tag, mark: sequence.mark) }
        case .mapping(let mapping):
            var children: [Int32] = []
            children.reserveCapacity(2 * mapping.pairs.count)
            for pair in mapping.pairs {
                children.append(append(pair.key).index)
                children.append(append(pair.value).index)
            }
            return children.withUnsafeBufferPointer { addCollection(.mapping, children: $0, tag: mapping.tag, mark: mapping.mark) }
        }
    }
}
