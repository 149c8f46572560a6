import YAMLCoding
import ParleyCore
import ParleyRegex

extension BotValidator {
    /// Names of ids, args, variables, queues: letters, digits, `_`, `-`.
    static func isName(_ text: String) -> Bool {
        guard !text.isEmpty else { return false }
        // ASCII names are the norm: check bytes first (as one buffer, without the UTF-8 view's
        // iterator), Unicode properties only when needed.
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2D
        }
        let isASCIIName = text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isNameByte) } ?? text.utf8.allSatisfy(isNameByte)
        return isASCIIName || text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
    }

    func checkName(_ name: Located<String>, what: String) {
        if !BotValidator.isName(name.value) {
            fail(name.mark, "invalid \(what) '\(VisibleText.line(name.value))': expected letters, digits, '_' or '-'")
        }
    }

    /// A target `user:ID` or `group:ID`.
    func checkTarget(_ target: Located<String>) {
        guard let channel = Channel(target: target.value), channel.kind != .local else {
            fail(target.mark, "invalid target '\(target.value)': expected user:ID or group:ID")
            return
        }
    }

    func checkDuration(_ text: Located<String>) {
        if let error = ValueCheck.duration(text, in: source) { found.errors.append(error) }
    }

    func checkRate(_ text: Located<String>) {
        if let error = ValueCheck.rate(text, in: source) { found.errors.append(error) }
    }

    /// Compiles a regex, reporting PCRE2's message at the column where it stopped.
    func compileRegex(_ text: Located<String>) -> Pattern? {
        if let known = patterns.byText[text.value] { return known }
        switch ValueCheck.regex(text, in: source) {
        case .success(let pattern):
            patterns.byText[text.value] = pattern
            return pattern
        case .failure(let error):
            found.errors.append(error)
            return nil
        }
    }

    /// Checks each placeholder of a template with `problem` (a message for a path that is not
    /// allowed, else nil) and reports the problems at their columns — or, for a malformed
    /// template, only its syntax error. Only the bad paths are kept (most templates have none:
    /// no array per template), and reported once the whole text has parsed.
    func checkPlaceholders(_ text: Located<String>, problem: (String) -> String?) {
        // Most texts have no placeholder at all: nothing to parse or check.
        guard text.value.containsByte(UInt8(ascii: "{")) else { return }
        var problems: [(message: String, offset: Int)] = []
        do {
            try Template.forEachPlaceholder(in: text.value) { path, offset in
                if let message = problem(path) { problems.append((message, offset)) }
            }
        } catch {
            let offset = ScalarPosition.scalarOffset(ofCharacter: error.offset, in: text.value)
            fail(ScalarPosition.mark(of: offset, in: text, source: source), "invalid template: \(error.message)")
            return
        }
        for (message, offset) in problems {
            let scalarOffset = ScalarPosition.scalarOffset(ofCharacter: offset, in: text.value)
            fail(ScalarPosition.mark(of: scalarOffset, in: text, source: source), message)
        }
    }

    /// A template whose variables must all be known in `scope`.
    func checkTemplate(_ text: Located<String>, scope: TemplateScope) {
        checkPlaceholders(text) { scope.problem(with: $0, vars: vars) }
    }
}

extension String {
    /// Whether the UTF-8 text contains `byte`, scanned as one buffer (most values are checked
    /// for `{` or a line break, and most have neither).
    func containsByte(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? utf8.contains(byte)
    }
}
