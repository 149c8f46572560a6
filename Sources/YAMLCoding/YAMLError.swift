/// One problem in a YAML file, positioned at a line and column, rendered like clang and Yams:
///
///     bots/support.yaml:12:3: error: unknown key 'comands', did you mean 'commands'?
///       comands:
///       ^
public struct YAMLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file name as given to the decoder or parser.
    public var file: String
    /// Where the problem is.
    public var mark: Mark
    /// The keys (and sequence indices) leading to the offending value; empty for syntax errors.
    public var codingPath: [String]
    /// What is wrong, without position.
    public var message: String
    /// The offending source line (without its line break), for the snippet.
    public var sourceLine: String?

    /// Creates an error; prefer `SourceFile.error(at:_:codingPath:)`, which fills `sourceLine`.
    public init(file: String, mark: Mark, codingPath: [String] = [], message: String, sourceLine: String? = nil) {
        self.file = file
        self.mark = mark
        self.codingPath = codingPath
        self.message = message
        self.sourceLine = sourceLine
    }

    /// `file:line:col: error: message`, then the source line and a caret under the column.
    public var description: String {
        var text = "\(file):\(mark.line):\(mark.column): error: \(message)"
        guard let sourceLine else { return text }
        text += "\n" + sourceLine + "\n"
        // Keep tabs before the column so the caret lines up in a terminal.
        for character in sourceLine.unicodeScalars.prefix(max(0, mark.column - 1)) {
            text += character == "\t" ? "\t" : " "
        }
        let missing = max(0, mark.column - 1 - sourceLine.unicodeScalars.count)
        text += String(repeating: " ", count: missing) + "^"
        return text
    }
}
