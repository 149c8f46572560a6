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
            fail(name.mark, "invalid \(what) '\(name.value)': expected letters, digits, '_' or '-'")
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

    /// The placeholders of a template (paths with character offsets), reporting a syntax error
    /// at its column (nil then). Each place parses its text: a bot repeats texts, but a lookup
    /// by text (hashing it) cost more than scanning it again.
    func placeholders(_ text: Located<String>) -> [(path: String, offset: Int)]? {
        // Most texts have no placeholder at all: nothing to parse or check.
        guard text.value.containsByte(UInt8(ascii: "{")) else { return nil }
        do {
            return try Template.placeholders(in: text.value)
        } catch {
            let offset = ScalarPosition.scalarOffset(ofCharacter: error.offset, in: text.value)
            fail(ScalarPosition.mark(of: offset, in: text, source: source), "invalid template: \(error.message)")
            return nil
        }
    }

    /// A template whose variables must all be known in `scope`.
    func checkTemplate(_ text: Located<String>, scope: TemplateScope) {
        guard let placeholders = placeholders(text) else { return }
        for (path, offset) in placeholders {
            guard let problem = scope.problem(with: path, vars: vars) else { continue }
            let scalarOffset = ScalarPosition.scalarOffset(ofCharacter: offset, in: text.value)
            fail(ScalarPosition.mark(of: scalarOffset, in: text, source: source), problem)
        }
    }
}

extension String {
    /// Whether the UTF-8 text contains `byte`, scanned as one buffer (most values are checked
    /// for `{` or a line break, and most have neither).
    func containsByte(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? utf8.contains(byte)
    }
}
