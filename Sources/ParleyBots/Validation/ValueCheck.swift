import YAMLCoding
import ParleyRegex

/// Checks of single scalar values shared by every validator (bots, config, flow tests): each
/// returns an error positioned at the exact column inside the value when it can.
public enum ValueCheck {
    /// Compiles a regex (without JIT: the result is for inspection, not matching); PCRE2's
    /// message at the column where it stopped.
    public static func regex(_ text: Located<String>, in source: SourceFile) -> Result<Pattern, YAMLError> {
        do {
            return .success(try Pattern(text.value, jit: false))
        } catch {
            if case .compile(let message, let offset) = error {
                return .failure(source.error(at: ScalarPosition.mark(of: offset, in: text, source: source), "invalid regex: \(message)"))
            }
            return .failure(source.error(at: text.mark, "invalid regex: \(error)"))
        }
    }

    /// A duration such as `10m`, or the error.
    public static func duration(_ text: Located<String>, in source: SourceFile) -> YAMLError? {
        check(text, in: source) { (value: String) throws(ValueSyntaxError) in _ = try DurationFormat.parse(value) }
    }

    /// A size such as `64KB`, or the error.
    public static func size(_ text: Located<String>, in source: SourceFile) -> YAMLError? {
        check(text, in: source) { (value: String) throws(ValueSyntaxError) in _ = try ByteSize.parse(value) }
    }

    /// A rate such as `20/s`, or the error.
    public static func rate(_ text: Located<String>, in source: SourceFile) -> YAMLError? {
        check(text, in: source) { (value: String) throws(ValueSyntaxError) in _ = try Rate(parsing: value) }
    }

    /// A listen address such as `127.0.0.1:8080`, or the error.
    public static func listenAddress(_ text: Located<String>, in source: SourceFile) -> YAMLError? {
        check(text, in: source) { (value: String) throws(ValueSyntaxError) in _ = try ListenAddress.parse(value).get() }
    }

    /// Whether `text` is one emoji: one grapheme (👍, ❤️, 👍🏽 and flags are each one
    /// Character) whose first scalar is an emoji and not ASCII (digits and `#` are emoji too).
    public static func isEmoji(_ text: String) -> Bool {
        guard text.count == 1, let first = text.unicodeScalars.first else { return false }
        return first.properties.isEmoji && !first.isASCII
    }

    /// Runs a value parser; its error at the column inside the value where it stopped.
    private static func check(_ text: Located<String>, in source: SourceFile,
                              _ parse: (String) throws(ValueSyntaxError) -> Void) -> YAMLError? {
        do {
            try parse(text.value)
            return nil
        } catch {
            return source.error(at: ScalarPosition.mark(of: error.offset, in: text, source: source), error.message)
        }
    }
}
