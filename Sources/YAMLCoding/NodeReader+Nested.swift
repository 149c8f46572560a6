extension NodeReader {
    // Values that read themselves, nested in this reader's value: read through a reader made
    // below this one, so their paths are built only when needed (an error, a value kept), and
    // without the generic dispatch of `decodeAny` (for `Located` or `Array`, then for `T`).
    // What they decode and report is what the generic `decode` / `decodeIfPresent` do.

    /// `decodeIfPresent` for a located value that reads itself (`do:` lists, `broadcast:`, …).
    @inlinable
    public func decodeIfPresent<T: YAMLNodeDecodable>(_ type: Located<T>.Type, forKey key: String) -> Located<T>? {
        guard let child = presentChild(key) else { return nil }
        return decodePresentLocated(T.self, child, key: key)
    }

    @usableFromInline
    func decodePresentLocated<T: YAMLNodeDecodable>(_ type: T.Type, _ child: NodeID, key: String) -> Located<T>? {
        ifDecoded(child) { (child: NodeID) throws(ValueFailure) -> Located<T> in
            do throws(ValueFailure) {
                let value = try context.decodeNodeValue(T.self, node: child, parentPath: nil, parentReader: self, key: .name(key))
                return Located(value: value, mark: tree.mark(child))
            } catch where error.errors.isEmpty {
                // As `Located.decodeDirectly`: a failure without errors goes through `init(from:)`.
                return try context.decodeValue(Located<T>.self, node: child, parentPath: path.appending(PathKey.name(key)), key: nil)
            }
        }
    }

    /// The node's own value as a list of values that read themselves (e.g. the items of an
    /// action list). On failure the errors are recorded and a stand-in is returned; throws only
    /// when even the stand-in fails.
    public func decode<T: YAMLNodeDecodable>(_ type: [T].Type) throws -> [T] {
        if isStandIn { return try context.standIn([T].self, at: mark, parentPath: path, key: nil) }
        do {
            return try elements(T.self)
        } catch {
            context.pendingErrors += error.errors
            return try context.standIn([T].self, at: mark, parentPath: path, key: nil)
        }
    }

    /// Every element decoded; the errors of all failing elements together (as
    /// `Array.decodeDirectly`).
    private func elements<T: YAMLNodeDecodable>(_ type: T.Type) throws(ValueFailure) -> [T] {
        guard tree.kind(id) == .sequence else {
            throw ValueFailure(errors: [context.error(at: tree.mark(id), "expected a sequence, found \(tree.kindDescription(id))", path: path)])
        }
        let count = tree.elementCount(id)
        var elements: [T] = []
        elements.reserveCapacity(count)
        var errors: [YAMLError] = []
        for index in 0..<count {
            do {
                elements.append(try context.decodeNodeValue(T.self, node: tree.element(id, index), parentPath: nil, parentReader: self, key: .index(index)))
            } catch {
                errors += error.errors
            }
        }
        guard errors.isEmpty else { throw ValueFailure(errors: errors) }
        return elements
    }
}
