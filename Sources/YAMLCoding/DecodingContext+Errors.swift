extension DecodingContext {
    /// Positioned errors for whatever a value's `init(from:)` threw.
    func errors(from error: any Error, decoder: NodeDecoder) -> [YAMLError] {
        errors(from: error, node: decoder.node, path: decoder.path)
    }

    /// Positioned errors for whatever the decoding of `node` (at `path`) threw.
    func errors(from error: any Error, node: NodeID, path: CodingPathLink?) -> [YAMLError] {
        switch error {
        case let failure as CallFailure: return failure.errors
        case let failure as ValueFailure: return failure.errors
        case let problem as NodeProblem: return [problem.error]
        case let error as YAMLError: return [error]
        case let errors as YAMLErrors: return errors.errors
        case let error as DecodingError: return [positioned(error, node: node, path: path)]
        default: return [self.error(at: tree.mark(node), String(describing: error), path: path)]
        }
    }

    /// For an enum with raw values whose scalar matched no case: the cases and the nearest one,
    /// instead of Swift's "Cannot initialize … from invalid String value".
    func enumProblem<T>(_ type: T.Type, error: any Error, decoder: NodeDecoder) -> YAMLError? {
        guard case DecodingError.dataCorrupted = error, let value = tree.scalarString(decoder.node),
              let enumType = T.self as? any (CaseIterable & RawRepresentable).Type else { return nil }
        let names = Self.caseNames(enumType)
        guard !names.isEmpty, !names.contains(value) else { return nil }
        var message = "unknown value '\(value.replacingNewlines())'"
        if let suggestion = KeySuggestion.nearest(to: value, among: names) {
            message += ", did you mean '\(suggestion)'?"
        }
        message += " (one of: " + names.joined(separator: ", ") + ")"
        return self.error(at: tree.mark(decoder.node), message, path: decoder.path)
    }

    private static func caseNames<E: CaseIterable & RawRepresentable>(_ type: E.Type) -> [String] {
        E.allCases.map { "\($0.rawValue)" }
    }

    /// A `DecodingError` from a custom `init(from:)`, placed at the node its coding path names
    /// (or the current node when the path leads elsewhere).
    private func positioned(_ error: DecodingError, node start: NodeID, path: CodingPathLink?) -> YAMLError {
        let context: DecodingError.Context
        var message: String
        switch error {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .dataCorrupted(let found):
            context = found
            message = found.debugDescription
        case .keyNotFound(let key, let found):
            context = found
            message = "missing required key '\(key.stringValue)'"
        @unknown default:
            return self.error(at: tree.mark(start), String(describing: error), path: path)
        }
        if message.isEmpty { message = "invalid value" }
        let base = path.keys
        var node = start
        if context.codingPath.count > base.count {
            for key in context.codingPath.dropFirst(base.count) {
                guard let child = child(of: node, key: key) else { break }
                node = child
            }
        }
        return YAMLError(file: file, mark: tree.mark(node), codingPath: context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue },
                         message: message)
    }

    private func child(of node: NodeID, key: any CodingKey) -> NodeID? {
        switch tree.kind(node) {
        case .mapping:
            let name = key.stringValue
            return (0..<tree.pairCount(node)).first { tree.scalar(tree.key(node, $0), equals: name) }.map { tree.value(node, $0) }
        case .sequence:
            guard let index = key.intValue, (0..<tree.elementCount(node)).contains(index) else { return nil }
            return tree.element(node, index)
        case .scalar: return nil
        }
    }
}
