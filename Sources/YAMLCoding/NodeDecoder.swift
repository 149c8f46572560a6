/// The `Decoder` over one node. In a frame (one attempt at a value's `init(from:)`) failures of
/// child calls throw `CallFailure`; without a frame it is lenient: it never fails on the data and
/// answers with stand-ins ("" / 0 / false / nil / empty), for replacing values that failed.
final class NodeDecoder: Decoder {
    let node: Node
    let path: CodingPathLink?
    let context: DecodingContext
    /// Nil in lenient mode.
    let frame: Frame?

    init(node: Node, path: CodingPathLink?, context: DecodingContext, frame: Frame?) {
        self.node = node
        self.path = path
        self.context = context
        self.frame = frame
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let mapping: Node.Mapping
        if case .mapping(let found) = node {
            mapping = found
        } else if frame == nil || (path == nil && node.isNull) {
            // Lenient mode, or an empty document: no keys at all.
            mapping = Node.Mapping([], mark: node.mark)
        } else {
            throw NodeProblem(error: context.error(at: node.mark, "expected a mapping, found \(node.kindDescription)", path: path))
        }
        let state = frame?.state(for: mapping, path: path) ?? MappingState(mapping, path: path)
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, state: state))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if case .sequence(let sequence) = node {
            return UnkeyedContainer(decoder: self, elements: sequence.elements)
        }
        guard frame != nil else { return UnkeyedContainer(decoder: self, elements: []) }
        throw NodeProblem(error: context.error(at: node.mark, "expected a sequence, found \(node.kindDescription)", path: path))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    // MARK: - Children

    /// Decodes the child `node` (nil when its key is missing) found under `key` (nil: this
    /// decoder's own node, for single-value containers).
    func decodeChild<T: Decodable>(_ type: T.Type, node child: Node?, key: (any CodingKey)?, missingIn mapping: Mark = Mark(line: 1, column: 1)) throws -> T {
        let childPath = key.map { CodingPathLink(parent: path, key: $0) } ?? path
        guard let frame else {
            return try lenientValue(T.self, node: .null(at: mapping), path: childPath)
        }
        if !frame.substitutes.isEmpty {
            let site = Site(childPath, T.self)
            if frame.substitutes.contains(site) {
                do {
                    return try lenientValue(T.self, node: child ?? .null(at: mapping), path: childPath)
                } catch {
                    // Even the stand-in failed (a validating init): this whole value fails.
                    throw CallFailure(frame: ObjectIdentifier(frame), site: site, errors: [])
                }
            }
        }
        guard let child else {
            let name = key?.stringValue ?? ""
            throw CallFailure(frame: ObjectIdentifier(frame), site: Site(childPath, T.self),
                              errors: [context.error(at: mapping, "missing required key '\(name)'", path: childPath)])
        }
        if let scalarType = T.self as? any ScalarValue.Type {
            switch parsedScalar(scalarType, child, path: childPath) {
            // The cast cannot fail: the value was parsed as `T` itself.
            case .success(let value): return value as! T
            case .failure(let error):
                throw CallFailure(frame: ObjectIdentifier(frame), site: Site(childPath, T.self), errors: [error])
            }
        }
        do {
            return try context.decodeValue(T.self, node: child, path: childPath)
        } catch {
            throw CallFailure(frame: ObjectIdentifier(frame), site: Site(childPath, T.self), errors: error.errors)
        }
    }

    /// A stand-in value, decoded from nothing: "" / 0 / false / nil / empty collections, and
    /// every key of a mapping missing. The node's content is ignored on purpose: what failed
    /// there would fail again, and nested optionals then never reach validating code.
    private func lenientValue<T: Decodable>(_ type: T.Type, node: Node, path: CodingPathLink?) throws -> T {
        if let scalarType = T.self as? any ScalarValue.Type {
            return Self.lenientDefault(scalarType) as! T  // cannot fail: the default is a `T`
        }
        return try T(from: NodeDecoder(node: .null(at: node.mark), path: path, context: context, frame: nil))
    }

    private static func lenientDefault<S: ScalarValue>(_ type: S.Type) -> S {
        S.lenientDefault
    }

    private func parsedScalar<S: ScalarValue>(_ type: S.Type, _ node: Node, path: CodingPathLink?) -> Result<any ScalarValue, YAMLError> {
        context.scalar(S.self, node, path: path).map { $0 }
    }


    /// A container for a node inside this decoder's own value (nested containers).
    func nestedDecoder(for child: Node?, key: any CodingKey, missingIn mapping: Mark, wants kind: String) throws -> NodeDecoder {
        let childPath = CodingPathLink(parent: path, key: key)
        guard let frame else {
            return NodeDecoder(node: .null(at: mapping), path: childPath, context: context, frame: nil)
        }
        let site = Site(childPath, NodeDecoder.self)
        if frame.substitutes.contains(site) {
            return NodeDecoder(node: child ?? .null(at: mapping), path: childPath, context: context, frame: nil)
        }
        guard let child else {
            throw CallFailure(frame: ObjectIdentifier(frame), site: site,
                              errors: [context.error(at: mapping, "missing required key '\(key.stringValue)'", path: childPath)])
        }
        let matches = switch child {
        case .mapping: kind == "a mapping"
        case .sequence: kind == "a sequence"
        case .scalar: false
        }
        guard matches else {
            throw CallFailure(frame: ObjectIdentifier(frame), site: site,
                              errors: [context.error(at: child.mark, "expected \(kind), found \(child.kindDescription)", path: childPath)])
        }
        return NodeDecoder(node: child, path: childPath, context: context, frame: frame)
    }
}

extension Node {
    /// A null standing in for a missing value.
    static func null(at mark: Mark) -> Node {
        .scalar(Node.Scalar(value: "", mark: mark))
    }
}
