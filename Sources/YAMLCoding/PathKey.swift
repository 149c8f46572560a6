/// The key of a value below its parent, as the decoding functions pass it along: a mapping key
/// or sequence index without an existential. Copying or destroying an `any CodingKey` goes
/// through its type's value witnesses, and that happened for every value read; the existential
/// is only made when a path is built (errors, nested values).
enum PathKey {
    /// The parent's own node (single-value reads).
    case none
    /// A mapping key.
    case name(String)
    /// A sequence index.
    case index(Int)
    /// Any other key (from the containers of a `Decoder`).
    case other(any CodingKey)

    /// `key` as a path key (nil: `.none`).
    init(_ key: (any CodingKey)?) {
        if let key { self = .other(key) } else { self = .none }
    }

    /// The key as a `CodingKey`, for paths (nil for `.none`).
    var codingKey: (any CodingKey)? {
        switch self {
        case .none: nil
        case .name(let name): StringKey(name)
        case .index(let index): IndexKey(index)
        case .other(let key): key
        }
    }
}

extension Optional where Wrapped == CodingPathLink {
    /// The path below this link through `key` (this path itself for `.none`).
    func appending(_ key: PathKey) -> CodingPathLink? {
        guard let codingKey = key.codingKey else { return self }
        return CodingPathLink(parent: self, key: codingKey)
    }
}
