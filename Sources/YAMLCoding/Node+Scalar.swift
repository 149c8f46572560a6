extension Node {
    /// How a scalar was written; quoted and block scalars are always strings.
    public enum ScalarStyle: Sendable, Hashable {
        /// `text`
        case plain
        /// `'text'`
        case singleQuoted
        /// `"text"`
        case doubleQuoted
        /// `|`
        case literal
        /// `>`
        case folded
    }

    /// A scalar node: the text after escapes, folding and chomping are applied.
    public struct Scalar: Sendable, Hashable {
        /// The scalar's text.
        public var value: String
        /// The explicit tag in full form, if any (`!` alone is kept as `!`).
        public var tag: String?
        /// Where it starts.
        public var mark: Mark
        /// How it was written. (Last: a one-byte field between the others would pad the node.)
        public var style: ScalarStyle

        /// Creates a scalar.
        public init(value: String, style: ScalarStyle = .plain, tag: String? = nil, mark: Mark) {
            self.value = value
            self.style = style
            self.tag = tag
            self.mark = mark
        }

        /// True for a null: plain `~`, `null`, `Null`, `NULL` or empty with no tag, or `!!null`.
        public var isNull: Bool {
            if let tag { return tag == Node.Tags.null }
            guard style == .plain else { return false }
            // By length first: every scalar is asked, and few are this short.
            switch value.utf8.count {
            case 0: return true
            case 1: return value == "~"
            case 4: return value == "null" || value == "Null" || value == "NULL"
            default: return false
            }
        }
    }

    /// The full forms of the YAML core schema tags.
    enum Tags {
        static let null = "tag:yaml.org,2002:null"
        static let bool = "tag:yaml.org,2002:bool"
        static let int = "tag:yaml.org,2002:int"
        static let float = "tag:yaml.org,2002:float"
        static let str = "tag:yaml.org,2002:str"
        static let merge = "tag:yaml.org,2002:merge"
    }
}
