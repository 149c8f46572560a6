/// Replaces `${VAR}` and `${VAR:-default}` in scalar values from an injected environment.
///
/// `${VAR:-default}` uses the default when VAR is unset or empty (as the shell does).
/// Write `$${` for a literal `${`. Any other `$` is kept as it is.
struct EnvironmentSubstitution {
    let environment: [String: String]

    /// The text with every reference replaced, or a message saying what is wrong.
    func apply(to text: String) -> Result<String, Problem> {
        // Most scalars have no `$` at all: skip the work.
        guard Self.mayContainReference(text) else { return .success(text) }
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let after = rest[dollar...].dropFirst()
            if after.hasPrefix("${") {
                result += "${"
                rest = after.dropFirst(2)
                continue
            }
            guard after.hasPrefix("{") else {
                result += "$"
                rest = after
                continue
            }
            guard let close = after.firstIndex(of: "}") else {
                return .failure(Problem("unterminated '${' (write '$${' for a literal '${')"))
            }
            let body = after[after.index(after: after.startIndex)..<close]
            switch value(of: body) {
            case .success(let value): result += value
            case .failure(let problem): return .failure(problem)
            }
            rest = after[after.index(after: close)...]
        }
        result += rest
        return .success(result)
    }

    /// False when the text has no `$` at all (checked on the raw bytes, without iterators).
    static func mayContainReference(_ text: String) -> Bool {
        let found = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.withMemoryRebound(to: UInt8.self) { $0.contains(UInt8(ascii: "$")) }
        }
        return found ?? text.utf8.contains(UInt8(ascii: "$"))
    }

    /// The value of one reference's body: `NAME` or `NAME:-default`.
    private func value(of body: Substring) -> Result<String, Problem> {
        var name = body
        var fallback: Substring?
        if let separator = body.firstRange(of: ":-") {
            name = body[..<separator.lowerBound]
            fallback = body[separator.upperBound...]
        }
        guard Self.isValidName(name) else {
            return .failure(Problem("invalid environment variable name '\(name)' in '${\(body)}'"))
        }
        if let value = environment[String(name)], !(value.isEmpty && fallback != nil) {
            return .success(value)
        }
        if let fallback { return .success(String(fallback)) }
        return .failure(Problem("environment variable '\(name)' is not set (use '${\(name):-default}' for a default)"))
    }

    private static func isValidName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    /// What is wrong with a reference.
    struct Problem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
