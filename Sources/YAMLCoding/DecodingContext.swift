/// What one `decode` call shares across all its decoders: the file, the environment, the user
/// info, and the retry loop that collects every error of a value.
final class DecodingContext {
    let file: String
    let substitution: EnvironmentSubstitution
    let userInfo: [CodingUserInfoKey: Any]
    /// Bounds the retries of one value's `init(from:)` (each retry answers one more failed call).
    static let maxAttempts = 10_000

    init(file: String, environment: [String: String], userInfo: [CodingUserInfoKey: Any]) {
        self.file = file
        substitution = EnvironmentSubstitution(environment: environment)
        self.userInfo = userInfo
    }

    /// An error without its source line (filled in once, at the end).
    func error(at mark: Mark, _ message: String, path: CodingPathLink?) -> YAMLError {
        YAMLError(file: file, mark: mark, codingPath: path.strings, message: message)
    }

    /// Decodes one value, collecting the errors of all its parts.
    ///
    /// Runs `T.init(from:)`; when a child call fails and the failure escapes, the child's errors
    /// are kept and `init(from:)` runs again with that child answered by a lenient stand-in,
    /// until it returns. Any kept error (or an unknown key) makes the value fail as a whole.
    func decodeValue<T: Decodable>(_ type: T.Type, node: Node, path: CodingPathLink?) throws(ValueFailure) -> T {
        var substitutes = Set<Site>()
        var kept: [YAMLError] = []
        for _ in 0..<Self.maxAttempts {
            let frame = Frame(substitutes: substitutes)
            let decoder = NodeDecoder(node: node, path: path, context: self, frame: frame)
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try T(from: decoder))
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let value):
                for state in frame.mappings { kept += state.unknownKeyErrors(self) }
                if kept.isEmpty { return value }
                throw ValueFailure(errors: kept)
            case .failure(let failure as CallFailure) where failure.frame == ObjectIdentifier(frame) && !substitutes.contains(failure.site):
                kept += failure.errors
                substitutes.insert(failure.site)
            case .failure(let error):
                if let problem = enumProblem(T.self, error: error, decoder: decoder) {
                    throw ValueFailure(errors: kept + [problem])
                }
                throw ValueFailure(errors: kept + errors(from: error, decoder: decoder))
            }
        }
        throw ValueFailure(errors: kept + [self.error(at: node.mark, "too many errors in one value", path: path)])
    }

    /// The scalar value of `node` as `S`, after `${VAR}` substitution.
    func scalar<S: ScalarValue>(_ type: S.Type, _ node: Node, path: @autoclosure () -> CodingPathLink?) -> Result<S, YAMLError> {
        guard case .scalar(let scalar) = node else {
            return .failure(error(at: node.mark, "expected \(S.expectation), found \(node.kindDescription)", path: path()))
        }
        if scalar.isNull {
            return .failure(error(at: node.mark, "expected \(S.expectation), found null", path: path()))
        }
        if scalar.style != .plain, !S.acceptsQuoted {
            return .failure(error(at: node.mark, "expected \(S.expectation), found the quoted string \(node.kindDescription)", path: path()))
        }
        let text: String
        switch substitution.apply(to: scalar.value) {
        case .success(let substituted): text = substituted
        case .failure(let problem): return .failure(error(at: node.mark, problem.message, path: path()))
        }
        guard let value = S.parse(text) else {
            return .failure(error(at: node.mark, S.problem(with: text), path: path()))
        }
        return .success(value)
    }
}

/// One attempt at one value's `init(from:)`: the calls to answer with stand-ins, and the
/// mappings whose keys must all have been asked about when it returns.
final class Frame {
    let substitutes: Set<Site>
    private(set) var mappings: [MappingState] = []

    init(substitutes: Set<Site>) {
        self.substitutes = substitutes
    }

    /// The state of `mapping` in this attempt, shared by every container opened on it (a class
    /// and its superclass each ask about their own keys of the same mapping).
    func state(for mapping: Node.Mapping, path: CodingPathLink?) -> MappingState {
        if let existing = mappings.first(where: { $0.mapping.mark == mapping.mark && $0.mapping.pairs.count == mapping.pairs.count }) {
            return existing
        }
        let state = MappingState(mapping, path: path)
        mappings.append(state)
        return state
    }
}
