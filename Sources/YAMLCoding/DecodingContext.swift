/// What one `decode` call shares across all its decoders: the file, the environment, the user
/// info, and the retry loop that collects every error of a value.
final class DecodingContext {
    let file: String
    /// The nodes being decoded (`treeOwner` keeps them alive).
    let tree: TreeView
    private let treeOwner: YAMLTree
    let substitution: EnvironmentSubstitution
    let userInfo: [CodingUserInfoKey: Any]
    /// Which types decode directly or through a reader (`DecodingContext.directType`).
    /// Unchecked exclusivity (also for `pendingErrors`): a decoding run is single-threaded,
    /// these are touched once per value, and no access spans a call that could touch them again.
    @exclusivity(unchecked) var directTypes: [KnownDecodingType]
    /// Errors recorded by the `NodeReader`s of the values being decoded, innermost last: each
    /// value takes the ones recorded since it started (no collector object per value).
    @exclusivity(unchecked) var pendingErrors: [YAMLError] = []
    /// Readers no value holds any more, for the next values (see `decodeNodeValue`). They hold
    /// the context: `releaseSpareReaders` breaks that cycle when a decoding run ends.
    @exclusivity(unchecked) var spareReaders: [NodeReader] = []
    /// Bounds the retries of one value's `init(from:)` (each retry answers one more failed call).
    static let maxAttempts = 10_000
    /// Set by `YAMLDecoder.decodeIgnoringUnknownKeys`: unknown keys don't fail a value.
    let ignoresUnknownKeys: Bool

    init(file: String, tree: YAMLTree, environment: [String: String], userInfo: [CodingUserInfoKey: Any], ignoresUnknownKeys: Bool = false) {
        self.file = file
        self.tree = tree.view
        treeOwner = tree
        self.ignoresUnknownKeys = ignoresUnknownKeys
        substitution = EnvironmentSubstitution(environment: environment)
        self.userInfo = userInfo
        directTypes = KnownDecodingType.known
    }

    /// Drops the spare readers (each holds the context); call when the run is over.
    func releaseSpareReaders() {
        spareReaders = []
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
    func decodeValue<T: Decodable>(_ type: T.Type, node: NodeID, parentPath: CodingPathLink?, key: (any CodingKey)?) throws(ValueFailure) -> T {
        var substitutes = Set<Site>()
        var kept: [YAMLError] = []
        for _ in 0..<Self.maxAttempts {
            let decoder = NodeDecoder(node: node, parentPath: parentPath, key: key, context: self)
            decoder.substitutes = substitutes
            let value: T
            do {
                value = try T(from: decoder)
            } catch let failure as CallFailure where failure.frame == ObjectIdentifier(decoder) && !substitutes.contains(failure.site) {
                kept += failure.errors
                substitutes.insert(failure.site)
                continue
            } catch {
                // An attempt running on stand-ins most likely failed because of a stand-in (a
                // validating init seeing ""), so then only the errors already found count.
                guard kept.isEmpty else { throw ValueFailure(errors: kept) }
                if let problem = enumProblem(T.self, error: error, decoder: decoder) { throw ValueFailure(errors: [problem]) }
                throw ValueFailure(errors: errors(from: error, decoder: decoder))
            }
            if !ignoresUnknownKeys, decoder.hasUnknownKeys {
                kept += unknownKeyErrors(T.self, decoder: decoder)
            }
            if kept.isEmpty { return value }
            throw ValueFailure(errors: kept)
        }
        throw ValueFailure(errors: kept + [self.error(at: tree.mark(node), "too many errors in one value", path: parentPath.appending(key))])
    }

    /// Unknown keys with suggestions: one more attempt records the keys the type asked about
    /// that the mapping lacks (not recorded normally, to save work when all is well).
    private func unknownKeyErrors<T: Decodable>(_ type: T.Type, decoder: NodeDecoder) -> [YAMLError] {
        let recorder = NodeDecoder(node: decoder.node, parentPath: decoder.path, key: nil, context: self)
        recorder.substitutes = decoder.substitutes
        recorder.recordsQueries = true
        guard (try? T(from: recorder)) != nil else { return decoder.unknownKeyErrors() }
        return recorder.unknownKeyErrors()
    }

    /// The scalar value of `node` as `S`, after `${VAR}` substitution.
    func scalar<S: ScalarValue>(_ type: S.Type, _ node: NodeID) throws(ScalarProblem) -> S {
        let record = tree.record(node)
        guard record.kind == .scalar else {
            throw ScalarProblem(record.mark, "expected \(S.expectation), found \(tree.kindDescription(node))")
        }
        if tree.isNull(node) {
            throw ScalarProblem(record.mark, "expected \(S.expectation), found null")
        }
        if record.style != .plain, !S.acceptsQuoted {
            throw ScalarProblem(record.mark, "expected \(S.expectation), found the quoted string \(tree.kindDescription(node))")
        }
        var text = tree.string(node)
        // Most scalars have no `$` (noted when the tree was built): no substitution to make.
        if record.hasDollar {
            switch substitution.apply(to: text) {
            case .success(let substituted): text = substituted
            case .failure(let problem): throw ScalarProblem(record.mark, problem.message)
            }
        }
        guard let value = S.parse(text) else {
            throw ScalarProblem(record.mark, S.problem(with: text))
        }
        return value
    }
}

/// Why a scalar is not a value of the type asked for.
struct ScalarProblem: Error {
    let mark: Mark
    let message: String
    init(_ mark: Mark, _ message: String) {
        self.mark = mark
        self.message = message
    }
}
