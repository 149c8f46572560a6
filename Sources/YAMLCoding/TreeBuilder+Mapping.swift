extension TreeBuilder {
    /// Adds the mapping whose pairs (key, value alternating) were pushed since `first`:
    /// duplicate keys are reported and dropped (the first one counts), then merge keys applied.
    mutating func finishMapping(from first: Int, tag: String?, mark: Mark) -> NodeID {
        // Valid throughout: nothing is pushed while a mapping is finished.
        let children = tree.pendingChildren(from: first)
        let nodes = tree.view
        let count = children.count / 2
        let duplicates = duplicatePositions(children, count: count, nodes)
        let hasMerge = options.mergeKeys && (0..<count).contains { nodes.isMergeKey(NodeID(Int(children[2 * $0]))) }
        // The usual mapping: its pairs as they came, no copy.
        guard !duplicates.isEmpty || hasMerge else {
            return tree.addCollection(.mapping, children: children, tag: tag, mark: mark)
        }
        var pairs: [Int32] = []
        pairs.reserveCapacity(2 * count)
        for position in 0..<count where !duplicates.contains(position) {
            pairs.append(children[2 * position])
            pairs.append(children[2 * position + 1])
        }
        if hasMerge { pairs = merged(pairs, nodes) }
        return pairs.withUnsafeBufferPointer { tree.addCollection(.mapping, children: $0, tag: tag, mark: mark) }
    }

    /// Reports the second and later occurrences of a scalar key among the `count` pairs of
    /// `children`, naming the first one's line, and returns their pair positions.
    private mutating func duplicatePositions(_ children: UnsafeBufferPointer<Int32>, count: Int, _ nodes: TreeView) -> Set<Int> {
        var positions = Set<Int>()
        func key(_ position: Int) -> NodeID { NodeID(Int(children[2 * position])) }
        func isPlainKey(_ node: NodeID) -> Bool { nodes.isScalar(node) && !nodes.isMergeKey(node) }
        // Small mappings (the usual case) compare pairwise, as bytes.
        if count <= 16 {
            for index in 1..<max(1, count) {
                let node = key(index)
                guard isPlainKey(node) else { continue }
                for earlier in 0..<index {
                    let other = key(earlier)
                    guard nodes.isScalar(other), nodes.scalars(other, node), !nodes.isMergeKey(other) else { continue }
                    reportDuplicate(node, first: nodes.mark(other), nodes)
                    positions.insert(index)
                    break
                }
            }
            return positions
        }
        // Large ones: a table hashed on the bytes when every key is ASCII (then equal bytes are
        // equal keys), else a dictionary of the keys' strings.
        if (0..<count).allSatisfy({ !nodes.isScalar(key($0)) || nodes.record(key($0)).isASCII }) {
            var table = [Int32](repeating: -1, count: 1 << (Int.bitWidth - (2 * count).leadingZeroBitCount))
            let mask = table.count - 1
            for index in 0..<count {
                let node = key(index)
                guard isPlainKey(node) else { continue }
                var slot = nodes.hashOfBytes(node) & mask
                while table[slot] >= 0, !nodes.scalars(key(Int(table[slot])), node) { slot = (slot + 1) & mask }
                if table[slot] >= 0 {
                    reportDuplicate(node, first: nodes.mark(key(Int(table[slot]))), nodes)
                    positions.insert(index)
                } else {
                    table[slot] = Int32(index)
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
                reportDuplicate(node, first: first, nodes)
                positions.insert(index)
            } else {
                seen[name] = nodes.mark(node)
            }
        }
        return positions
    }

    private mutating func reportDuplicate(_ key: NodeID, first: Mark, _ nodes: TreeView) {
        let problem = source.error(at: nodes.mark(key), "duplicate key '\(nodes.string(key).replacingNewlines())' (first defined at line \(first.line))")
        problems.append(problem)
    }

    /// Replaces each `<<` pair by the entries of the mapping(s) it names. Explicit keys win over
    /// merged ones; within a list of maps, earlier maps win over later ones.
    private mutating func merged(_ pairs: [Int32], _ nodes: TreeView) -> [Int32] {
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
