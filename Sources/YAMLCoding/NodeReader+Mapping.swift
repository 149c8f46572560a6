extension NodeReader {
    /// Fails unless the node is a mapping ("expected a mapping, found …"); call it before
    /// reading keys. An empty document reads as an empty mapping, as with `init(from:)`.
    public func expectMapping() throws {
        let count: Int
        if tree.kind(id) == .mapping {
            count = tree.pairCount(id)
        } else if isStandIn || (path == nil && tree.isNull(id)) {
            count = 0
        } else {
            throw NodeProblem(error: context.error(at: tree.mark(id), "expected a mapping, found \(tree.kindDescription(id))", path: path))
        }
        if !mappingUse.isRead {
            mappingUse = MappingUse(id, count: count, recordsQueries: recordsQueries)
        }
    }

    /// How many pairs the mapping has (0 before `expectMapping`): room to reserve for a
    /// value built from every key.
    public var keyCount: Int { mappingUse.count }

    /// Whether the mapping has `key` (asking counts as using it, for unknown-key checks).
    public func contains(_ key: String) -> Bool {
        lookUp(key) != nil
    }

    /// The value of a key that must be there. Missing or failing: the error is recorded and a
    /// stand-in returned; throws only when even the stand-in fails.
    public func decode<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T {
        try required(T.self, key) { (child: NodeID) throws(ValueFailure) -> T in try context.decodeAny(T.self, node: child, parentPath: path, key: .name(key)) }
    }

    /// A required key's value decoded by `body`, or a stand-in with the error recorded.
    func required<T: Decodable>(_ type: T.Type, _ key: String, _ body: (NodeID) throws(ValueFailure) -> T) throws -> T {
        guard let child = lookUp(key) else {
            let mark = tree.mark(mappingUse.mapping)   // this node's, before `expectMapping`
            if !isStandIn {
                context.pendingErrors.append(context.error(at: mark, "missing required key '\(key)'", path: path.appending(StringKey(key))))
            }
            return try context.standIn(T.self, at: mark, parentPath: path, key: StringKey(key))
        }
        do {
            return try body(child)
        } catch {
            context.pendingErrors += error.errors
            return try context.standIn(T.self, at: tree.mark(child), parentPath: path, key: StringKey(key))
        }
    }

    /// The value of a key that may be missing or null (both nil). Failing: the errors are
    /// recorded and the result is nil.
    ///
    /// Inlined into the caller (as are the other `decodeIfPresent`), so that an absent key —
    /// most keys a schema asks about — costs a lookup and no generic call.
    @inlinable
    public func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: String) -> T? {
        guard let child = presentChild(key) else { return nil }
        return decodePresent(T.self, child, key: key)
    }

    /// `decodeIfPresent` once the child is known to be there.
    @usableFromInline
    func decodePresent<T: Decodable>(_ type: T.Type, _ child: NodeID, key: String) -> T? {
        ifDecoded(child) { (child: NodeID) throws(ValueFailure) -> T in try context.decodeAny(T.self, node: child, parentPath: path, key: .name(key)) }
    }

    /// A present child decoded by `body`; nil when that fails (the errors are recorded).
    func ifDecoded<T>(_ child: NodeID, _ body: (NodeID) throws(ValueFailure) -> T) -> T? {
        do {
            return try body(child)
        } catch {
            context.pendingErrors += error.errors
            return nil
        }
    }

    /// The value node of `key`, marked used; nil when the key is missing or its value null.
    @usableFromInline
    func presentChild(_ key: String) -> NodeID? {
        guard let child = lookUp(key) else { return nil }
        return tree.isNull(child) ? nil : child
    }

    /// Calls `body` with each scalar key of the mapping, the key's mark and its value's mark,
    /// in file order (merged `<<` entries where the merge key stood). Asks about nothing by
    /// itself.
    public func forEachKey(_ body: (_ key: String, _ keyMark: Mark, _ valueMark: Mark) throws -> Void) rethrows {
        let mapping = mappingUse.mapping, count = mappingUse.count   // 0 before `expectMapping`
        for position in 0..<count {
            let key = tree.key(mapping, position)
            if let name = tree.scalarString(key) { try body(name, tree.mark(key), tree.mark(tree.value(mapping, position))) }
        }
    }

    /// The value node of `key`, marked used (absent keys recorded in the recording pass); a
    /// reader that never called `expectMapping` has no keys.
    private func lookUp(_ key: String) -> NodeID? {
        guard let position = mappingUse.lookUp(key, in: tree) else { return nil }
        return tree.value(id, position)
    }

    /// Whether the mapping has keys nobody asked about.
    var hasUnknownKeys: Bool {
        guard mappingUse.isRead, !isStandIn else { return false }
        return !mappingUse.allUsed
    }

    /// An error for every key nobody asked about, with suggestions.
    func unknownKeyErrors() -> [YAMLError] {
        mappingUse.isRead ? mappingUse.unknownKeyErrors(context, path: path) : []
    }
}

extension NodeReader {
    /// Which of `names` the mapping has, as a mask (bit `i` for `names.names[i]`), found in one
    /// pass over its keys. Nothing is marked used: read the present keys as usual. In the pass
    /// that records absent keys for suggestions, each absent name is recorded, in order, as if
    /// it had been looked up.
    public func keysPresent(among names: KeyNames) -> UInt64 {
        guard mappingUse.isRead, !isStandIn else { return 0 }
        let mapping = mappingUse.mapping, count = mappingUse.count
        var present: UInt64 = 0
        names.bytes.withUnsafeBufferPointer { all in
            names.signatures.withUnsafeBufferPointer { signatures in
                for position in 0..<count {
                    if let index = names.index(of: tree.key(mapping, position), in: tree, all: all, signatures: signatures, excluding: present) {
                        present |= KeyNames.bit(index)
                    }
                }
            }
        }
        if recordsQueries {
            for index in names.names.indices where present & KeyNames.bit(index) == 0 {
                _ = lookUp(names.names[index])
            }
        }
        return present
    }
}
