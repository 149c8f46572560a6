/// One step of a coding path, linked to its parent so that decoding a child costs one small
/// object instead of a copied array; the full path is only built when someone asks.
final class CodingPathLink {
    let parent: CodingPathLink?
    let key: any CodingKey

    init(parent: CodingPathLink?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    /// The keys from the root to here.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var link: CodingPathLink? = self
        while let current = link {
            keys.append(current.key)
            link = current.parent
        }
        return keys.reversed()
    }

    /// The path as strings for `YAMLError.codingPath` (indices as their number).
    var strings: [String] {
        keys.map { $0.intValue.map(String.init) ?? $0.stringValue }
    }
}

extension Optional where Wrapped == CodingPathLink {
    /// The path below this link through `key` (or this path itself when `key` is nil).
    func appending(_ key: (any CodingKey)?) -> CodingPathLink? {
        guard let key else { return self }
        return CodingPathLink(parent: self, key: key)
    }

    var keys: [any CodingKey] { self?.keys ?? [] }
    var strings: [String] { self?.strings ?? [] }
}

/// The key of a sequence element.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { intValue.map(String.init) ?? "" }

    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) {
        guard let index = Int(stringValue) else { return nil }
        intValue = index
    }
}

/// Where in a value's `init(from:)` a child was asked for: the child's path and the type asked.
/// A failed call is recognised by its site when `init(from:)` is run again.
struct Site: Hashable {
    let path: [String]
    let type: ObjectIdentifier

    init(_ path: CodingPathLink?, _ type: Any.Type) {
        self.path = path.strings
        self.type = ObjectIdentifier(type)
    }
}
