extension DecodingContext {
    /// Decodes a `YAMLNodeDecodable` value in one reading pass: the errors its children
    /// recorded, then its unknown keys, fail it as a whole (as `decodeValue` does for
    /// `init(from:)`, without the retries).
    /// `parentReader`, if given, is the reader of the enclosing value (then `parentPath` is
    /// unused): the path below it is only built when needed.
    func decodeNodeValue<T: YAMLNodeDecodable>(_ type: T.Type, node: NodeID, parentPath: CodingPathLink?, parentReader: NodeReader? = nil,
                                               key: PathKey) throws(ValueFailure) -> T {
        let reader: NodeReader
        if let spare = spareReaders.popLast() {
            spare.reuse(node: node, parentPath: parentPath, parentReader: parentReader, key: key)
            reader = spare
        } else {
            reader = NodeReader(node: node, context: self, parentPath: parentPath, parentReader: parentReader, key: key)
        }
        do {
            let value = try readValue(T.self, node: node, with: reader)
            recycle(consume reader)
            return value
        } catch {
            recycle(consume reader)
            throw error
        }
    }

    /// Keeps `reader` for the next value when nothing else holds it (the value's init did not
    /// keep it). A spare reader holds the context: `decode` empties the list when done. A reader
    /// kept by its value gets its own path, before its parent reader moves on.
    private func recycle(_ reader: consuming NodeReader) {
        var reader = reader
        if isKnownUniquelyReferenced(&reader) {
            if spareReaders.count < 64 { spareReaders.append(reader) }
        } else {
            reader.detach()
        }
    }

    private func readValue<T: YAMLNodeDecodable>(_ type: T.Type, node: NodeID, with reader: NodeReader) throws(ValueFailure) -> T {
        let start = pendingErrors.count
        let value: T
        do {
            value = try T(yaml: reader)
        } catch {
            // Errors already recorded explain the failure (a stand-in rejected by later code).
            let recorded = takePendingErrors(from: start)
            guard recorded.isEmpty else { throw ValueFailure(errors: recorded) }
            throw ValueFailure(errors: errors(from: error, node: node, path: reader.path))
        }
        if !ignoresUnknownKeys, reader.hasUnknownKeys {
            let unknown = unknownKeyErrors(T.self, reader: reader)
            pendingErrors += unknown
        }
        let recorded = takePendingErrors(from: start)
        guard recorded.isEmpty else { throw ValueFailure(errors: recorded) }
        return value
    }

    /// Unknown keys with suggestions: a second reading pass records the keys the type asked
    /// about that the mapping lacks (not recorded normally, to save work when all is well).
    private func unknownKeyErrors<T: YAMLNodeDecodable>(_ type: T.Type, reader: NodeReader) -> [YAMLError] {
        let start = pendingErrors.count
        defer { pendingErrors.removeSubrange(start...) }
        let recorder = NodeReader(node: reader.id, context: self, parentPath: reader.path, key: .none, recordsQueries: true)
        guard (try? T(yaml: recorder)) != nil, recorder.mappingUse.isRead else { return reader.unknownKeyErrors() }
        return recorder.unknownKeyErrors()
    }

    /// The errors recorded since `start`, removed from the pending list.
    private func takePendingErrors(from start: Int) -> [YAMLError] {
        guard pendingErrors.count > start else { return [] }
        let taken = Array(pendingErrors[start...])
        pendingErrors.removeSubrange(start...)
        return taken
    }

    /// A stand-in `T` for a value that failed or is missing, decoded from nothing: "" / 0 /
    /// false / nil / empty collections, every key of a mapping missing.
    func standIn<T: Decodable>(_ type: T.Type, at mark: Mark, parentPath: CodingPathLink?, key: (any CodingKey)?) throws -> T {
        if let scalarType = T.self as? any ScalarValue.Type, let value = Self.lenientDefault(scalarType) as? T {
            return value
        }
        return try T(from: NodeDecoder(node: tree.null(at: mark), parentPath: parentPath, key: key, context: self, lenient: true))
    }

    private static func lenientDefault<S: ScalarValue>(_ type: S.Type) -> any ScalarValue {
        S.lenientDefault
    }
}
