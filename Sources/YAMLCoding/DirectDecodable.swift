/// Types this module decodes without their `init(from:)`: scalars, and arrays and
/// string-keyed dictionaries of anything. Going direct skips the generic standard-library code
/// (the hot path of every bot file) and collects the errors of all elements in one pass.
protocol DirectDecodable: SendableMetatype {
    /// `path` is the value's coding path, built only when asked for (errors, nested values):
    /// a link per scalar would be an allocation per scalar.
    static func decodeDirectly(_ node: NodeID, context: DecodingContext, path: () -> CodingPathLink?) throws(ValueFailure) -> Self
}

extension DecodingContext {
    /// Decodes any value found at `node` (reached through `key` below `parentPath`): scalars and
    /// collections directly, everything else through its `init(from:)`.
    /// `parentPath` is only evaluated when needed (composite values, errors): scalars, the bulk
    /// of every file, then never build their parent's path.
    func decodeAny<T: Decodable>(_ type: T.Type, node: NodeID, parentPath: @autoclosure () -> CodingPathLink?, key: PathKey) throws(ValueFailure) -> T {
        // The bit casts are exact: each branch checked T's identity.
        if T.self == String.self { return unsafeBitCast(try scalarValue(String.self, node, parentPath, key), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try scalarValue(Int.self, node, parentPath, key), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try scalarValue(Bool.self, node, parentPath, key), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try scalarValue(Double.self, node, parentPath, key), to: T.self) }
        // Located strings and lists of them are most values of a bot file: decoded here in
        // concrete code, with what `Located.decodeDirectly` and `Array.decodeDirectly` would do.
        if T.self == Located<String>.self { return unsafeBitCast(try locatedString(node, parentPath: parentPath(), key: key), to: T.self) }
        if T.self == [Located<String>].self { return unsafeBitCast(try locatedStrings(node, parentPath: parentPath(), key: key), to: T.self) }
        let found = directType(T.self)
        if let direct = found.direct {
            return try openDirect(direct, as: T.self, node, { parentPath().appending(key) })
        }
        if let reader = found.reader {
            return try openReader(reader, as: T.self, node, parentPath(), key)
        }
        return try decodeValue(T.self, node: node, parentPath: parentPath(), key: key.codingKey)
    }

    /// `T` as a `DirectDecodable` or a `YAMLNodeDecodable` type, or neither. The runtime's
    /// conformance lookup is a hashed search each time; a file's values are of a few dozen
    /// types, so a short list of the types seen so far (compared by identity, no hashing)
    /// answers almost every call.
    private func directType<T>(_ type: T.Type) -> KnownDecodingType {
        let id = ObjectIdentifier(T.self)
        for known in directTypes where known.type == id { return known }
        let found = KnownDecodingType.lookUp(T.self)
        if directTypes.count < 256 { directTypes.append(found) }
        return found
    }

    private func openReader<D: YAMLNodeDecodable, T>(_ type: D.Type, as result: T.Type, _ node: NodeID, _ parentPath: CodingPathLink?,
                                                     _ key: PathKey) throws(ValueFailure) -> T {
        // `D` is `T` (the caller's cast said so): reinterpret instead of a dynamic cast.
        unsafeBitCast(try decodeNodeValue(D.self, node: node, parentPath: parentPath, key: key), to: T.self)
    }

    private func openDirect<D: DirectDecodable, T>(_ type: D.Type, as result: T.Type, _ node: NodeID, _ path: () -> CodingPathLink?) throws(ValueFailure) -> T {
        // `D` is `T` (the caller's cast said so): reinterpret instead of a dynamic cast.
        unsafeBitCast(try D.decodeDirectly(node, context: self, path: path), to: T.self)
    }

    /// The path is only built when there is an error.
    private func scalarValue<S: ScalarValue>(_ type: S.Type, _ node: NodeID, _ parentPath: () -> CodingPathLink?,
                                             _ key: PathKey) throws(ValueFailure) -> S {
        do {
            return try scalar(S.self, node)
        } catch {
            throw ValueFailure(errors: [self.error(at: error.mark, error.message, path: parentPath().appending(key))])
        }
    }

    /// `Located<String>` at `node` in concrete code (most values of a bot file are one): what
    /// `Located.decodeDirectly` does with a `String`.
    func locatedString(_ node: NodeID, parentPath: @autoclosure () -> CodingPathLink?, key: PathKey) throws(ValueFailure) -> Located<String> {
        Located(value: try scalarValue(String.self, node, parentPath, key), mark: tree.mark(node))
    }

    /// `Located<Bool>` at `node` in concrete code: what `Located.decodeDirectly` does with a `Bool`.
    func locatedFlag(_ node: NodeID, parentPath: @autoclosure () -> CodingPathLink?, key: PathKey) throws(ValueFailure) -> Located<Bool> {
        Located(value: try scalarValue(Bool.self, node, parentPath, key), mark: tree.mark(node))
    }

    /// `[Located<String>]` at `node` in concrete code: a sequence of good strings read in one
    /// loop (no per-element generic dispatch or path closures); anything else — not a
    /// sequence, a bad element — goes through `Array.decodeDirectly` from the start (reading a
    /// scalar has no side effects), which reports exactly what the generic path reports.
    func locatedStrings(_ node: NodeID, parentPath: @autoclosure () -> CodingPathLink?, key: PathKey) throws(ValueFailure) -> [Located<String>] {
        if tree.kind(node) == .sequence {
            let count = tree.elementCount(node)
            var elements: [Located<String>] = []
            elements.reserveCapacity(count)
            for index in 0..<count {
                let element = tree.element(node, index)
                guard let value = try? scalar(String.self, element) else { break }
                elements.append(Located(value: value, mark: tree.mark(element)))
            }
            if elements.count == count { return elements }
        }
        return try [Located<String>].decodeDirectly(node, context: self, path: { parentPath().appending(key) })
    }
}

extension String: DirectDecodable {}
extension Bool: DirectDecodable {}
extension Double: DirectDecodable {}
extension Float: DirectDecodable {}
extension Int: DirectDecodable {}
extension Int8: DirectDecodable {}
extension Int16: DirectDecodable {}
extension Int32: DirectDecodable {}
extension Int64: DirectDecodable {}
extension UInt: DirectDecodable {}
extension UInt8: DirectDecodable {}
extension UInt16: DirectDecodable {}
extension UInt32: DirectDecodable {}
extension UInt64: DirectDecodable {}

extension ScalarValue {
    static func decodeDirectly(_ node: NodeID, context: DecodingContext, path: () -> CodingPathLink?) throws(ValueFailure) -> Self {
        do {
            return try context.scalar(Self.self, node)
        } catch {
            throw ValueFailure(errors: [context.error(at: error.mark, error.message, path: path())])
        }
    }
}

extension Array: DirectDecodable where Element: Decodable {
    /// Every element decoded; the errors of all failing elements together.
    static func decodeDirectly(_ node: NodeID, context: DecodingContext, path lazyPath: () -> CodingPathLink?) throws(ValueFailure) -> [Element] {
        let tree = context.tree
        guard tree.kind(node) == .sequence else {
            throw ValueFailure(errors: [context.error(at: tree.mark(node), "expected a sequence, found \(tree.kindDescription(node))", path: lazyPath())])
        }
        var built: CodingPathLink??
        func path() -> CodingPathLink? {
            if let built { return built }
            let link = lazyPath()
            built = .some(link)
            return link
        }
        var elements: [Element] = []
        let count = tree.elementCount(node)
        elements.reserveCapacity(count)
        var errors: [YAMLError] = []
        for index in 0..<count {
            do {
                elements.append(try context.decodeAny(Element.self, node: tree.element(node, index), parentPath: path(), key: .index(index)))
            } catch {
                errors += error.errors
            }
        }
        guard errors.isEmpty else { throw ValueFailure(errors: errors) }
        return elements
    }
}

extension Dictionary: DirectDecodable where Key == String, Value: Decodable {
    /// Every entry decoded (keys are the scalar keys' text); the errors of all failing entries.
    static func decodeDirectly(_ node: NodeID, context: DecodingContext, path lazyPath: () -> CodingPathLink?) throws(ValueFailure) -> [String: Value] {
        let path = lazyPath()
        let tree = context.tree
        guard tree.kind(node) == .mapping else {
            throw ValueFailure(errors: [context.error(at: tree.mark(node), "expected a mapping, found \(tree.kindDescription(node))", path: path)])
        }
        var entries: [String: Value] = [:]
        entries.reserveCapacity(tree.pairCount(node))
        var errors: [YAMLError] = []
        for position in 0..<tree.pairCount(node) {
            let key = tree.key(node, position)
            guard let name = tree.scalarString(key) else {
                errors.append(context.error(at: tree.mark(key), "expected a string key, found \(tree.kindDescription(key))", path: path))
                continue
            }
            do {
                entries[name] = try context.decodeAny(Value.self, node: tree.value(node, position), parentPath: path, key: .name(name))
            } catch {
                errors += error.errors
            }
        }
        guard errors.isEmpty else { throw ValueFailure(errors: errors) }
        return entries
    }
}
