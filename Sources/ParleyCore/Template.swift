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
    ///
    /// Scans UTF-8 bytes: bot files hold thousands of templates and Foundation's string
    /// searching (through NSString on Linux) made parsing them the slowest part of `check`.
    public init(_ source: String) throws(TemplateError) {
        self.source = source
        var segments: [Segment] = []
        try Template.scan(source,
                          literal: { segments.append(.literal($0)) },
                          variable: { segments.append(.variable(path: $0, offset: $1)) })
        self.segments = segments
    }

    /// The placeholders of `source` in order — each path with the character offset of its
    /// `{{`, as in `segments` — without the literal text between them: for checking a
    /// template (`parley check` checks thousands), not rendering it. Throws as `init` does.
    public static func placeholders(in source: String) throws(TemplateError) -> [(path: String, offset: Int)] {
        var found: [(path: String, offset: Int)] = []
        // One allocation for the usual template (a few placeholders), not one per growth.
        found.reserveCapacity(4)
        try forEachPlaceholder(in: source) { found.append(($0, $1)) }
        return found
    }

    /// Calls `body` with each placeholder's path and character offset of its `{{`, in order,
    /// collecting nothing (a checker that keeps only the few bad paths allocates nothing for a
    /// good template). A malformed template throws as `init` does, after `body` has seen the
    /// placeholders before the fault: callers that report must hold back until it returns.
    public static func forEachPlaceholder(in source: String, _ body: (_ path: String, _ offset: Int) -> Void) throws(TemplateError) {
        try scan(source, literal: nil, variable: body)
    }

    private struct Failure: Error {
        var open: Int
        /// nil for an unclosed `{{`, else the trimmed path that is not a valid name.
        var path: Range<Int>?
    }

    /// Calls `literal` with each text between placeholders (when given: the text is only made
    /// then) and `variable` with each placeholder's path and character offset, in order; a
    /// malformed template throws where the scan stops (callers discard what they collected).
    private static func scan(_ source: String, literal: ((String) -> Void)?, variable: (String, Int) -> Void) throws(TemplateError) {
        var text = source
        let failure = text.withUTF8 { bytes in parse(bytes, source, literal: literal, variable: variable) }
        guard let failure else { return }
        let offset = characterOffset(source, failure.open)
        switch failure.path {
        case nil: throw TemplateError(message: "unclosed '{{'", offset: offset)
        case let path?:
            throw TemplateError(message: "invalid placeholder '{{\(string(source, path))}}': expected a dotted name like user.name", offset: offset)
        }
    }

    /// One pass over `bytes` (the UTF-8 of `source`). Every piece starts and ends next to an
    /// ASCII byte, so each is valid UTF-8 on its own.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ source: String,
                              literal: ((String) -> Void)?, variable: (String, Int) -> Void) -> Failure? {
        let brace = UInt8(ascii: "{"), close = UInt8(ascii: "}"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        func piece(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        // Before the first non-ASCII byte or carriage return, every byte is one `Character`
        // (only CR LF joins ASCII bytes into one): offsets there need no grapheme counting.
        let simplePrefix = bytes.firstIndex { $0 >= 0x80 || $0 == 0x0D } ?? bytes.count
        var literalStart = 0
        var index = 0
        let count = bytes.count
        while index + 1 < count {
            guard bytes[index] == brace, bytes[index + 1] == brace else { index += 1; continue }
            let open = index
            var end = index + 2
            while end + 1 < count, !(bytes[end] == close && bytes[end + 1] == close) { end += 1 }
            guard end + 1 < count else { return Failure(open: open, path: nil) }
            var lower = open + 2, upper = end
            while lower < upper, bytes[lower] == space || bytes[lower] == tab { lower += 1 }
            while upper > lower, bytes[upper - 1] == space || bytes[upper - 1] == tab { upper -= 1 }
            guard isValidPath(bytes, lower..<upper) else { return Failure(open: open, path: lower..<upper) }
            if let literal, literalStart < open { literal(piece(literalStart..<open)) }
            variable(piece(lower..<upper), open <= simplePrefix ? open : characterOffset(source, open))
            index = end + 2
            literalStart = index
        }
        if let literal, literalStart < count { literal(piece(literalStart..<count)) }
        return nil
    }

    /// Dot-separated parts of letters, digits, `_` and `-` (any non-ASCII byte counts as a
    /// letter, as `Character.isLetter` accepted names in any script).
    private static func isValidPath(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        var partLength = 0
        for index in range {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                if partLength == 0 { return false }
                partLength = 0
                continue
            }
            let ok = byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            if !ok { return false }
            partLength += 1
        }
        return partLength > 0
    }

    private static func string(_ source: String, _ range: Range<Int>) -> String {
        let utf8 = source.utf8
        return String(utf8[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)]) ?? ""
    }

    /// Converts a byte offset to a `Character` offset (the unit error columns are counted in).
    private static func characterOffset(_ source: String, _ byteOffset: Int) -> Int {
        let utf8 = source.utf8
        let index = utf8.index(utf8.startIndex, offsetBy: byteOffset)
        return source.distance(from: source.startIndex, to: index)
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
