import Foundation

/// A text with `{{path}}` placeholders — card fallbacks, bot replies, broadcast texts.
///
/// Parsed once, rendered many times. Rendering inserts values as plain text: a value that
/// itself contains `{{…}}` is never re-parsed, so chat input cannot inject placeholders.
/// There is no code execution, no filters, no conditionals: a path is looked up, that is all.
public struct Template: Sendable, Hashable, CustomStringConvertible {
    public enum Segment: Sendable, Hashable {
        case literal(String)
        /// A dotted path such as `user.name`, with the offset of `{{` in the source text.
        case variable(path: String, offset: Int)
    }

    public let source: String
    public let segments: [Segment]

    /// Parses `source`. An unclosed `{{` or an empty / malformed path throws
    /// `TemplateError` with the character offset, so callers can point at the column.
    public init(_ source: String) throws(TemplateError) {
        self.source = source
        var segments: [Segment] = []
        var literal = ""
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            literal += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw TemplateError(message: "unclosed '{{'", offset: source.distance(from: source.startIndex, to: open.lowerBound))
            }
            let path = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            let offset = source.distance(from: source.startIndex, to: open.lowerBound)
            guard Template.isValidPath(path) else {
                throw TemplateError(message: "invalid placeholder '{{\(path)}}': expected a dotted name like user.name", offset: offset)
            }
            if !literal.isEmpty { segments.append(.literal(literal)); literal = "" }
            segments.append(.variable(path: path, offset: offset))
            rest = rest[close.upperBound...]
        }
        literal += rest
        if !literal.isEmpty { segments.append(.literal(literal)) }
        self.segments = segments
    }

    /// The placeholder paths in order of appearance.
    public var variables: [String] {
        segments.compactMap { if case .variable(let path, _) = $0 { return path } else { return nil } }
    }

    /// True when the text has no placeholders (rendering returns it unchanged).
    public var isConstant: Bool { variables.isEmpty }

    /// Renders with `lookup`; a path it answers nil for renders as the empty string.
    public func render(_ lookup: (String) -> String?) -> String {
        var output = ""
        for segment in segments {
            switch segment {
            case .literal(let text): output += text
            case .variable(let path, _): output += lookup(path) ?? ""
            }
        }
        return output
    }

    /// Renders from a flat dictionary of paths.
    public func render(_ values: [String: String]) -> String { render { values[$0] } }

    public var description: String { source }

    private static func isValidPath(_ path: String) -> Bool {
        guard !path.isEmpty else { return false }
        return path.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        }
    }
}

/// A malformed template: what is wrong and the character offset in the template text.
public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }
    public var description: String { message }
}
