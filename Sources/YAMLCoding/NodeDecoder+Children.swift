extension NodeDecoder {
    /// Decodes the child `node` (nil when its key is missing) found under `key` (nil: this
    /// decoder's own node, for single-value containers).
    func decodeChild<T: Decodable>(_ type: T.Type, node child: NodeID?, key: (any CodingKey)?, missingIn mapping: Mark = Mark(line: 1, column: 1)) throws -> T {
        // The common case first: strict mode, nothing to stand in for, the child is there.
        guard !lenient, frame.substitutes.isEmpty, let child else {
            return try decodeChildSlowly(T.self, node: child, key: key, missingIn: mapping)
        }
        return try decodePresent(T.self, child, key: key)
    }

    private func decodePresent<T: Decodable>(_ type: T.Type, _ child: NodeID, key: (any CodingKey)?) throws -> T {
        do {
            return try context.decodeAny(T.self, node: child, parentPath: path, key: PathKey(key))
        } catch {
            throw CallFailure(frame: ObjectIdentifier(frame), site: Site(path.appending(key), T.self), errors: error.errors)
        }
    }

    /// Lenient mode, stand-ins for calls that failed in an earlier attempt, missing keys.
    private func decodeChildSlowly<T: Decodable>(_ type: T.Type, node child: NodeID?, key: (any CodingKey)?, missingIn mapping: Mark) throws -> T {
        guard !lenient else {
            return try lenientValue(T.self, at: mapping, key: key)
        }
        let childPath = path.appending(key)
        let site = Site(childPath, T.self)
        if frame.substitutes.contains(site) {
            do {
                return try lenientValue(T.self, at: child.map(context.tree.mark) ?? mapping, key: key)
            } catch {
                // Even the stand-in failed (a validating init): this whole value fails.
                throw CallFailure(frame: ObjectIdentifier(frame), site: site, errors: [])
            }
        }
        guard let child else {
            throw CallFailure(frame: ObjectIdentifier(frame), site: site,
                              errors: [context.error(at: mapping, "missing required key '\(key?.stringValue ?? "")'", path: childPath)])
        }
        return try decodePresent(T.self, child, key: key)
    }

    /// A stand-in value (see `DecodingContext.standIn`). The node's content is ignored on
    /// purpose: what failed there would fail again, and nested optionals then never reach
    /// validating code.
    private func lenientValue<T: Decodable>(_ type: T.Type, at mark: Mark, key: (any CodingKey)?) throws -> T {
        try context.standIn(T.self, at: mark, parentPath: path, key: key)
    }
}
