extension TreeBuilder {
    /// Checks a finished mapping for duplicate keys (reported, and dropped so that the first one
    /// counts) and applies its merge keys.
    mutating func finish(_ pairs: [Node.Pair]) -> [Node.Pair] {
        var pairs = pairs
        let duplicates = duplicatePositions(in: pairs)
        if !duplicates.isEmpty {
            pairs = pairs.enumerated().filter { !duplicates.contains($0.offset) }.map(\.element)
        }
        guard options.mergeKeys, pairs.contains(where: { $0.key.isMergeKey }) else { return pairs }
        return merged(pairs)
    }

    /// Reports the second and later occurrences of a scalar key, naming the first one's line,
    /// and returns their positions.
    private mutating func duplicatePositions(in pairs: [Node.Pair]) -> Set<Int> {
        var positions = Set<Int>()
        // Small mappings (the usual case) compare pairwise; large ones use a dictionary.
        if pairs.count <= 16 {
            for index in pairs.indices.dropFirst() {
                guard let key = pairs[index].key.scalar, !pairs[index].key.isMergeKey else { continue }
                let length = key.value.utf8.count
                if let first = pairs[..<index].first(where: {
                    guard case .scalar(let other) = $0.key else { return false }
                    return other.value.utf8.count == length && other.value == key.value && !$0.key.isMergeKey
                }) {
                    reportDuplicate(key, first: first.key.mark)
                    positions.insert(index)
                }
            }
            return positions
        }
        var seen: [String: Mark] = [:]
        for (index, pair) in pairs.enumerated() {
            guard let key = pair.key.scalar, !pair.key.isMergeKey else { continue }
            if let first = seen[key.value] {
                reportDuplicate(key, first: first)
                positions.insert(index)
            } else {
                seen[key.value] = key.mark
            }
        }
        return positions
    }

    private mutating func reportDuplicate(_ key: Node.Scalar, first: Mark) {
        let problem = source.error(at: key.mark, "duplicate key '\(key.value.replacingNewlines())' (first defined at line \(first.line))")
        problems.append(problem)
    }

    /// Replaces each `<<` pair by the entries of the mapping(s) it names. Explicit keys win over
    /// merged ones; within a list of maps, earlier maps win over later ones.
    private mutating func merged(_ pairs: [Node.Pair]) -> [Node.Pair] {
        var taken = Set<String>()
        for pair in pairs where !pair.key.isMergeKey {
            if let key = pair.key.scalar?.value { taken.insert(key) }
        }
        var result: [Node.Pair] = []
        result.reserveCapacity(pairs.count)
        for pair in pairs {
            guard pair.key.isMergeKey else {
                result.append(pair)
                continue
            }
            let sources: [Node]
            switch pair.value {
            case .mapping: sources = [pair.value]
            case .sequence(let sequence): sources = sequence.elements
            case .scalar: sources = [pair.value]
            }
            for source in sources {
                guard case .mapping(let mapping) = source else {
                    problems.append(self.source.error(at: source.mark,
                        "a merge key '<<' takes a mapping or a sequence of mappings, found \(source.kindDescription)"))
                    continue
                }
                for entry in mapping.pairs {
                    if let key = entry.key.scalar?.value {
                        guard taken.insert(key).inserted else { continue }
                    }
                    result.append(entry)
                }
            }
        }
        return result
    }
}

extension Node {
    /// A plain `<<` key (or one tagged `!!merge`).
    var isMergeKey: Bool {
        guard case .scalar(let scalar) = self, scalar.value == "<<" else { return false }
        if let tag = scalar.tag { return tag == Node.Tags.merge }
        return scalar.style == .plain
    }
}
