import Foundation

/// Decodes `Decodable` values from YAML text, reporting every problem in the file at once, each
/// with its file, line and column.
///
/// - Booleans are only `true` and `false`; numbers are typed by the Swift type decoded; a
///   `String` accepts any scalar except null; `~`, `null` and nothing are nil for optionals.
/// - `${VAR}` and `${VAR:-default}` in values (not keys) come from `environment`; `$${` is a
///   literal `${`.
/// - Keys the type never asked about are errors, with a suggestion where one is close.
/// - Tags other than the core schema's (`!!str`, `!!int`, …) and `!` are errors: the decoder
///   constructs no other types, and silently dropping `!!python/object:…` would hide intent.
/// - Files beyond `maximumFileSize` bytes or `maximumNestingDepth` levels are refused.
public struct YAMLDecoder: Sendable {
    /// Where `${VAR}` references are looked up.
    public var environment: [String: String]
    /// Passed to every `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Most collections open inside each other; one more is an error at its start. It bounds
    /// libyaml's scanner, whose work per token grows with the flow depth (quadratic overall),
    /// and the decoder's recursion.
    public var maximumNestingDepth = YAMLDecoder.defaultMaximumNestingDepth
    /// Most bytes of text; a larger file is an error at its first byte beyond, before parsing.
    public var maximumFileSize = YAMLDecoder.defaultMaximumFileSize

    /// 256: far above what a configuration needs (a bot file nests under ten deep).
    public static let defaultMaximumNestingDepth = 256
    /// 1 MB: hundreds of times the largest example file (a 6 KB flow test), and a bound on the
    /// worst case the depth limit leaves: libyaml walks one entry per open flow level for each
    /// token, so parsing time grows with size times depth (the measured worst case is in
    /// docs/PERFORMANCE.md).
    public static let defaultMaximumFileSize = 1024 * 1024

    /// A decoder reading `${VAR}` from `environment` (the process environment by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Parses `text` (one YAML document) and decodes a `T`; `file` names it in errors.
    public func decode<T: Decodable>(_ type: T.Type, from text: String, file: String) throws(YAMLErrors) -> T {
        let builder = try TreeBuilder.build(text, file: file, options: options)
        let source = SourceFile(name: file, text: text)
        var problems = builder.problems + builder.tree.unknownTagErrors(in: source)
        if builder.documents.count > 1 {
            problems.append(source.error(at: builder.tree.view.mark(builder.documents[1]), "expected one YAML document, found several"))
        }
        let root = builder.documents.first ?? builder.tree.null(at: Mark(line: 1, column: 1))
        return try decode(type, from: root, in: builder.tree, source: source, problems: problems)
    }

    /// Decodes a `T` from an already parsed node; `source` names the file and gives snippets.
    public func decode<T: Decodable>(_ type: T.Type, from node: Node, source: SourceFile) throws(YAMLErrors) -> T {
        let (tree, root) = YAMLTree.holding(node)
        return try decode(type, from: root, in: tree, source: source, problems: tree.unknownTagErrors(in: source))
    }

    /// Decodes `text` as if unknown keys were absent and duplicate keys were not repeated
    /// (the first one counts, as always); nil when anything else is wrong.
    ///
    /// After `decode` failed with only unknown or duplicate keys, this gives the value those
    /// errors hide, so semantic validation can report its problems in the same run: the value
    /// is exactly what the file says (no stand-ins), minus the keys already reported.
    public func decodeIgnoringUnknownKeys<T: Decodable>(_ type: T.Type, from text: String, file: String) -> T? {
        guard let builder = try? TreeBuilder.build(text, file: file, options: options), builder.documents.count == 1,
              builder.tree.unknownTagErrors(in: builder.source).isEmpty, let root = builder.documents.first else { return nil }
        let context = DecodingContext(file: file, tree: builder.tree, environment: environment, userInfo: userInfo, ignoresUnknownKeys: true)
        defer { context.releaseSpareReaders() }
        return try? context.decodeAny(T.self, node: root, parentPath: nil, key: .none)
    }

    private var options: TreeBuilder.Options {
        var options = TreeBuilder.Options()
        options.maximumNestingDepth = maximumNestingDepth
        options.maximumFileSize = maximumFileSize
        return options
    }

    private func decode<T: Decodable>(_ type: T.Type, from node: NodeID, in tree: YAMLTree, source: SourceFile, problems: [YAMLError]) throws(YAMLErrors) -> T {
        let context = DecodingContext(file: source.name, tree: tree, environment: environment, userInfo: userInfo)
        defer { context.releaseSpareReaders() }
        var errors = problems
        var value: T?
        do {
            value = try context.decodeAny(T.self, node: node, parentPath: nil, key: .none)
        } catch {
            errors += error.errors
        }
        guard let value, errors.isEmpty else {
            let lines = source.lines(Set(errors.filter { $0.sourceLine == nil && $0.file == source.name }.map(\.mark.line)))
            throw YAMLErrors(errors.map { error in
                var error = error
                if error.sourceLine == nil, error.file == source.name { error.sourceLine = lines[error.mark.line] }
                return error
            })
        }
        return value
    }
}
