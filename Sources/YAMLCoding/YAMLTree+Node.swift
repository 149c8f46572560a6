extension TreeView {
    /// The public `Node` value of `node` and everything below it (aliases become copies).
    func node(_ node: NodeID) -> Node {
        let record = record(node)
        let tag = tag(node)
        switch record.kind {
        case .scalar:
            return .scalar(Node.Scalar(value: string(node), style: record.style, tag: tag, mark: record.mark))
        case .sequence:
            let elements = (0..<Int(record.count)).map { self.node(element(node, $0)) }
            return .sequence(Node.Sequence(elements, tag: tag, mark: record.mark))
        case .mapping:
            let pairs = (0..<Int(record.count)).map { Node.Pair(key: self.node(key(node, $0)), value: self.node(value(node, $0))) }
            return .mapping(Node.Mapping(pairs, tag: tag, mark: record.mark))
        }
    }

}

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
