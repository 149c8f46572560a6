extension NodeReader {
    // The overloads below are what schema types call most. Chosen at compile time over the
    // generic ones, they skip the type tests and the search for a decoding protocol that
    // `decodeAny` makes for any `T`; what they decode and report is the same. (No overload for
    // `Located<T>` of a generic `T`: it would look up `Located<T>`'s metadata on every call,
    // also for absent keys, which costs more than it saves.)

    /// `decode(_:forKey:)` for the most common value, in concrete code.
    public func decode(_ type: Located<String>.Type, forKey key: String) throws -> Located<String> {
        try required(Located<String>.self, key) { (child: NodeID) throws(ValueFailure) -> Located<String> in
            try context.locatedString(child, parentPath: path, key: .name(key))
        }
    }

    /// `decodeIfPresent` for the most common value, in concrete code.
    @inlinable
    public func decodeIfPresent(_ type: Located<String>.Type, forKey key: String) -> Located<String>? {
        guard let child = presentChild(key) else { return nil }
        return decodePresentString(child, key: key)
    }

    @usableFromInline
    func decodePresentString(_ child: NodeID, key: String) -> Located<String>? {
        ifDecoded(child) { (child: NodeID) throws(ValueFailure) -> Located<String> in
            try context.locatedString(child, parentPath: path, key: .name(key))
        }
    }

    /// `decodeIfPresent` for a located flag (`quote:`), in concrete code.
    @inlinable
    public func decodeIfPresent(_ type: Located<Bool>.Type, forKey key: String) -> Located<Bool>? {
        guard let child = presentChild(key) else { return nil }
        return decodePresentFlag(child, key: key)
    }

    @usableFromInline
    func decodePresentFlag(_ child: NodeID, key: String) -> Located<Bool>? {
        ifDecoded(child) { (child: NodeID) throws(ValueFailure) -> Located<Bool> in
            try context.locatedFlag(child, parentPath: path, key: .name(key))
        }
    }

    /// `decodeIfPresent` for lists of strings, in concrete code.
    @inlinable
    public func decodeIfPresent(_ type: [Located<String>].Type, forKey key: String) -> [Located<String>]? {
        guard let child = presentChild(key) else { return nil }
        return decodePresentStrings(child, key: key)
    }

    @usableFromInline
    func decodePresentStrings(_ child: NodeID, key: String) -> [Located<String>]? {
        ifDecoded(child) { (child: NodeID) throws(ValueFailure) -> [Located<String>] in
            try context.locatedStrings(child, parentPath: path, key: .name(key))
        }
    }

    /// `decode(_:forKey:)` for a type that reads itself.
    public func decode<T: YAMLNodeDecodable>(_ type: T.Type, forKey key: String) throws -> T {
        try required(T.self, key) { (child: NodeID) throws(ValueFailure) -> T in
            try context.decodeNodeValue(T.self, node: child, parentPath: nil, parentReader: self, key: .name(key))
        }
    }

    /// `decodeIfPresent` for a type that reads itself.
    @inlinable
    public func decodeIfPresent<T: YAMLNodeDecodable>(_ type: T.Type, forKey key: String) -> T? {
        guard let child = presentChild(key) else { return nil }
        return decodePresentNode(T.self, child, key: key)
    }

    @usableFromInline
    func decodePresentNode<T: YAMLNodeDecodable>(_ type: T.Type, _ child: NodeID, key: String) -> T? {
        ifDecoded(child) { (child: NodeID) throws(ValueFailure) -> T in
            try context.decodeNodeValue(T.self, node: child, parentPath: nil, parentReader: self, key: .name(key))
        }
    }
}
