internal import Synchronization

/// What the runtime says about one type's decoding protocols. A conformance lookup costs
/// thousands of instructions and every file asks about the same few dozen types, so the
/// answers are kept for the whole process (`shared`) and copied into each decoding run.
struct KnownDecodingType: Sendable {
    let type: ObjectIdentifier
    /// The type as `DirectDecodable`, if it is one.
    let direct: (any DirectDecodable.Type)?
    /// The type as `YAMLNodeDecodable`, if it is one (and not `DirectDecodable`).
    let reader: (any YAMLNodeDecodable.Type)?

    /// The answers so far, for every decoding run of the process.
    private static let shared = Mutex<[KnownDecodingType]>([])
    /// Bounds the shared list (a run still works past it, asking the runtime).
    private static let limit = 256

    /// The answers found so far by any run.
    static var known: [KnownDecodingType] {
        shared.withLock { $0 }
    }

    /// Asks the runtime about `T` and shares the answer.
    static func lookUp<T>(_ type: T.Type) -> KnownDecodingType {
        let direct = T.self as? any DirectDecodable.Type
        let found = KnownDecodingType(type: ObjectIdentifier(T.self), direct: direct,
                                      reader: direct == nil ? T.self as? any YAMLNodeDecodable.Type : nil)
        shared.withLock { known in
            if known.count < limit, !known.contains(where: { $0.type == found.type }) { known.append(found) }
        }
        return found
    }
}
