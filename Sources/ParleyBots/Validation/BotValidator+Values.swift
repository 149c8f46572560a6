import YAMLCoding
import ParleyCore
import ParleyRegex

extension BotValidator {
    /// Names of ids, args, variables, queues: letters, digits, `_`, `-`.
    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
    }

    mutating func checkName(_ name: Located<String>, what: String) {
        if !BotValidator.isName(name.value) {
            fail(name.mark, "invalid \(what) '\(name.value)': expected letters, digits, '_' or '-'")
        }
    }

    /// A target `user:ID` or `group:ID`.
    mutating func checkTarget(_ target: Located<String>) {
        guard let channel = Channel(target: target.value), channel.kind != .local else {
            fail(target.mark, "invalid target '\(target.value)': expected user:ID or group:ID")
            return
        }
    }

    mutating func checkDuration(_ text: Located<String>) {
        if let error = ValueCheck.duration(text, in: source) { errors.append(error) }
    }

    mutating func checkRate(_ text: Located<String>) {
        if let error = ValueCheck.rate(text, in: source) { errors.append(error) }
    }

    /// Compiles a regex, reporting PCRE2's message at the column where it stopped.
    mutating func compileRegex(_ text: Located<String>) -> Pattern? {
        switch ValueCheck.regex(text, in: source) {
        case .success(let pattern): return pattern
        case .failure(let error):
            errors.append(error)
            return nil
        }
    }

    /// Parses a template, reporting a syntax error at its column.
    mutating func parseTemplate(_ text: Located<String>) -> Template? {
        do {
            return try Template(text.value)
        } catch {
            let offset = ScalarPosition.scalarOffset(ofCharacter: error.offset, in: text.value)
            fail(ScalarPosition.mark(of: offset, in: text, source: source), "invalid template: \(error.message)")
            return nil
        }
    }

    /// A template whose variables must all be known in `scope`.
    mutating func checkTemplate(_ text: Located<String>, scope: TemplateScope) {
        guard let template = parseTemplate(text) else { return }
        for case .variable(let path, let offset) in template.segments {
            guard let problem = scope.problem(with: path, vars: vars) else { continue }
            let scalarOffset = ScalarPosition.scalarOffset(ofCharacter: offset, in: text.value)
            fail(ScalarPosition.mark(of: scalarOffset, in: text, source: source), problem)
        }
    }
}
