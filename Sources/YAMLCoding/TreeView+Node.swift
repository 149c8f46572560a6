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
