extension TreeBuilder {
    /// The nodes built so far (taken afresh: adding nodes may move the storage).
    private var nodes: TreeView { tree.view }

    /// Adds the mapping whose pairs are `children[first...]` (key, value alternating): duplicate
    /// keys are reported and dropped (the first one counts), then merge keys applied.
    mutating func finishMapping(from first: Int, tag: String?, mark: Mark) -> NodeID {
        let count = (children.count - first) / 2
        let duplicates = duplicatePositions(from: first, count: count)
        let hasMerge = options.mergeKeys && (0..<count).contains { nodes.isMergeKey(NodeID(Int(children[first + 2 * $0]))) }
        // The usual mapping: its pairs as they came, no copy.
        guard !duplicates.isEmpty || hasMerge else {
            return children.withUnsafeBufferPointer { all in
                tree.addCollection(.mapping, children: UnsafeBufferPointer(rebasing: all[first...]), tag: tag, mark: mark)
            }
        }
        var pairs: [Int32] = []
        pairs.reserveCapacity(2 * count)
        for position in 0..<count where !duplicates.contains(position) {
            pairs.append(children[first + 2 * position])
            pairs.append(children[first + 2 * position + 1])
        }
        if hasMerge { pairs = merged(pairs) }
        return pairs.withUnsafeBufferPointer { tree.addCollection(.mapping, children: $0, tag: tag, mark: mark) }
    }

    /// Reports the second and later occurrences of a scalar key among the `count` pairs at
    /// `children[first...]`, naming the first one's line, and returns their pair positions.
    private mutating func duplicatePositions(from first: Int, count: Int) -> Set<Int> {
        var positions = Set<Int>()
        func key(_ position: Int) -> NodeID { NodeID(Int(children[first + 2 * position])) }
        func isPlainKey(_ node: NodeID) -> Bool { nodes.isScalar(node) && !nodes.isMergeKey(node) }
        // Small mappings (the usual case) compare pairwise, as bytes; large ones use a dictionary.
        if count <= 16 {
            for index in 1..<max(1, count) {
                let node = key(index)
                guard isPlainKey(node) else { continue }
                for earlier in 0..<index {
                    let other = key(earlier)
                    guard nodes.isScalar(other), nodes.scalars(other, node), !nodes.isMergeKey(other) else { continue }
                    reportDuplicate(node, first: nodes.mark(other))
                    positions.insert(index)
                    break
                }
            }
            return positions
        }
        var seen: [String: Mark] = [:]
        for index in 0..<count {
            let node = key(index)
            guard isPlainKey(node) else { continue }
            let name = nodes.string(node)
            if let first = seen[name] {
                reportDuplicate(node, first: first)
                positions.insert(index)
            } else {
                seen[name] = nodes.mark(node)
            }
        }
        return positions
    }

    private mutating func reportDuplicate(_ key: NodeID, first: Mark) {
        let problem = source.error(at: nodes.mark(key), "duplicate key '\(nodes.string(key).replacingNewlines())' (first defined at line \(first.line))")
        problems.append(problem)
    }

    /// Replaces each `<<` pair by the entries of the mapping(s) it names. Explicit keys win over
    /// merged ones; within a list of maps, earlier maps win over later ones.
    private mutating func merged(_ pairs: [Int32]) -> [Int32] {
        let count = pairs.count / 2
        var taken = Set<String>()
        for position in 0..<count {
            let key = NodeID(Int(pairs[2 * position]))
            if !nodes.isMergeKey(key), let name = nodes.scalarString(key) { taken.insert(name) }
        }
        var result: [Int32] = []
        result.reserveCapacity(pairs.count)
        for position in 0..<count {
            let key = NodeID(Int(pairs[2 * position]))
            let value = NodeID(Int(pairs[2 * position + 1]))
            guard nodes.isMergeKey(key) else {
                result.append(key.index)
                result.append(value.index)
                continue
            }
            let sources: [NodeID] = nodes.kind(value) == .sequence
                ? (0..<nodes.elementCount(value)).map { nodes.element(value, $0) }
                : [value]
            for source in sources {
                guard nodes.kind(source) == .mapping else {
                    problems.append(self.source.error(at: nodes.mark(source),
                        "a merge key '<<' takes a mapping or a sequence of mappings, found \(nodes.kindDescription(source))"))
                    continue
                }
                for entry in 0..<nodes.pairCount(source) {
                    let entryKey = nodes.key(source, entry)
                    if let name = nodes.scalarString(entryKey) {
                        guard taken.insert(name).inserted else { continue }
                    }
                    result.append(entryKey.index)
                    result.append(nodes.value(source, entry).index)
                }
            }
        }
        return result
    }
}
