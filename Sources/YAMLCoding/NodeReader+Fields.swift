extension NodeReader {
    /// Calls `body` with each scalar key of the mapping that is none of `names`, its mark and
    /// its value read as a located string, in file order (as `forEachKey`, then
    /// `decode(Located<String>.self, forKey:)` for each key, with the same errors recorded),
    /// but reading each value by its position: no lookup by name, and no string made for the
    /// keys skipped. For mappings whose other keys are free-form fields (a card's).
    public func forEachString(skipping names: KeyNames, _ body: (_ key: String, _ keyMark: Mark, _ value: Located<String>) throws -> Void) throws {
        let mapping = mappingUse.mapping, count = mappingUse.count   // 0 before `expectMapping`
        for position in 0..<count {
            let key = tree.key(mapping, position)
            guard tree.isScalar(key) else { continue }
            let skipped = names.bytes.withUnsafeBufferPointer { all in
                names.signatures.withUnsafeBufferPointer { signatures in
                    names.index(of: key, in: tree, all: all, signatures: signatures, excluding: 0) != nil
                }
            }
            if skipped { continue }
            let name = tree.string(key)
            mappingUse.markUsed(position)
            try body(name, tree.mark(key), try string(at: tree.value(mapping, position), key: name))
        }
    }

    /// The located string at `child`, the value of `key` (as `required` reads a present key).
    private func string(at child: NodeID, key: String) throws -> Located<String> {
        do {
            return try context.locatedString(child, parentPath: path, key: .name(key))
        } catch {
            context.pendingErrors += error.errors
            return try context.standIn(Located<String>.self, at: tree.mark(child), parentPath: path, key: StringKey(key))
        }
    }
}
