internal import CPCRE2

/// A compiled PCRE2 regular expression (UTF mode, Unicode properties, JIT when available).
///
/// `@unchecked Sendable` because the compiled code and the match context are never mutated
/// after `init` and PCRE2 documents both as safe to share between threads; every match
/// allocates its own match data, the only per-call mutable state.
public final class Pattern: @unchecked Sendable, CustomStringConvertible {
    /// The pattern text as written.
    public let source: String
    /// The limits every match runs under.
    public let limits: PatternLimits
    /// Named groups and their group numbers, in the order of their numbers.
    public let namedGroups: [(name: String, number: Int)]
    /// True when PCRE2 JIT-compiled the pattern.
    public let isJIT: Bool

    private let code: OpaquePointer
    private let matchContext: OpaquePointer

    /// Compiles `source`. A syntax error throws `PatternError.compile` with PCRE2's message and
    /// the offset (in Unicode scalars) where it was detected. `jit: false` skips the JIT step,
    /// for callers that only check a pattern (`parley check`) and never match with it.
    public init(_ source: String, limits: PatternLimits = .default, jit: Bool = true) throws(PatternError) {
        self.source = source
        self.limits = limits
        var errorCode: Int32 = 0
        var errorOffset = 0
        let options = UInt32(PCRE2_UTF | PCRE2_UCP)
        let compiled: OpaquePointer? = source.utf8.withContiguousStorageIfAvailable { buffer in
            pcre2_compile_8(buffer.baseAddress, buffer.count, options, &errorCode, &errorOffset, nil)
        } ?? Array(source.utf8).withUnsafeBufferPointer { buffer in
            pcre2_compile_8(buffer.baseAddress, buffer.count, options, &errorCode, &errorOffset, nil)
        }
        guard let compiled else {
            throw .compile(message: Pattern.message(for: errorCode), offset: Pattern.scalarOffset(in: source, byteOffset: errorOffset))
        }
        guard let context = pcre2_match_context_create_8(nil) else {
            pcre2_code_free_8(compiled)
            throw .matchFailed(code: PCRE2_ERROR_NOMEMORY, message: "out of memory creating a match context")
        }
        pcre2_set_match_limit_8(context, limits.matchLimit)
        pcre2_set_depth_limit_8(context, limits.depthLimit)
        pcre2_set_heap_limit_8(context, limits.heapLimitKiB)
        self.code = compiled
        self.matchContext = context
        // JIT is an optimisation: when the platform lacks it, the interpreter runs instead.
        self.isJIT = jit && pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE)) == 0
        self.namedGroups = Pattern.readNameTable(compiled)
    }

    deinit {
        pcre2_match_context_free_8(matchContext)
        pcre2_code_free_8(code)
    }

    public var description: String { source }

    /// The first match in `text`, or nil. Throws `PatternError.limitExceeded` when the
    /// pattern backtracks past its limits instead of taking unbounded time.
    public func firstMatch(in text: String) throws(PatternError) -> PatternMatch? {
        var text = text
        text.makeContiguousUTF8()
        let result: Result<PatternMatch?, PatternError>? = text.utf8.withContiguousStorageIfAvailable { buffer in
            runMatch(text, buffer)
        }
        guard let result else { throw .matchFailed(code: 0, message: "text is not contiguous UTF-8") }
        return try result.get()
    }

    /// True when `text` contains a match.
    public func matches(_ text: String) throws(PatternError) -> Bool {
        try firstMatch(in: text) != nil
    }

    // MARK: - Matching

    private func runMatch(_ text: String, _ buffer: UnsafeBufferPointer<UInt8>) -> Result<PatternMatch?, PatternError> {
        guard let matchData = pcre2_match_data_create_from_pattern_8(code, nil) else {
            return .failure(.matchFailed(code: PCRE2_ERROR_NOMEMORY, message: "out of memory creating match data"))
        }
        defer { pcre2_match_data_free_8(matchData) }
        // Swift strings are valid UTF-8, so PCRE2's own check would only cost time.
        var status = pcre2_match_8(code, buffer.baseAddress, buffer.count, 0, UInt32(PCRE2_NO_UTF_CHECK), matchData, matchContext)
        if status == PCRE2_ERROR_JIT_STACKLIMIT {
            // The JIT's small machine stack ran out on a legitimate text: the interpreter keeps
            // its backtracking on the heap, bounded by the heap limit instead.
            status = pcre2_match_8(code, buffer.baseAddress, buffer.count, 0, UInt32(PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT), matchData, matchContext)
        }
        switch status {
        case PCRE2_ERROR_NOMATCH:
            return .success(nil)
        case PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_DEPTHLIMIT, PCRE2_ERROR_HEAPLIMIT, PCRE2_ERROR_JIT_STACKLIMIT:
            return .failure(.limitExceeded)
        case ..<0:
            return .failure(.matchFailed(code: status, message: Pattern.message(for: status)))
        default:
            break
        }
        guard let ovector = pcre2_get_ovector_pointer_8(matchData) else { return .success(nil) }
        let pairs = Int(pcre2_get_ovector_count_8(matchData))
        func range(_ group: Int) -> Range<String.Index>? {
            guard group < pairs else { return nil }
            let start = ovector[2 * group], end = ovector[2 * group + 1]
            guard start != ~0, end != ~0, start <= end else { return nil }
            let utf8 = text.utf8
            return utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)
        }
        guard let whole = range(0) else { return .success(nil) }
        var groups: [String: String] = [:]
        for (name, number) in namedGroups where groups[name] == nil {
            if let groupRange = range(number) { groups[name] = String(text[groupRange]) }
        }
        return .success(PatternMatch(range: whole, text: String(text[whole]), groups: groups))
    }

    // MARK: - Helpers

    private static func message(for code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = pcre2_get_error_message_8(code, &buffer, buffer.count)
        guard length > 0 else { return "PCRE2 error \(code)" }
        return String(decoding: buffer[..<Int(length)], as: UTF8.self)
    }

    /// PCRE2 reports byte offsets; users count characters, so count the scalars before it.
    private static func scalarOffset(in source: String, byteOffset: Int) -> Int {
        var bytes = 0, scalars = 0
        for scalar in source.unicodeScalars {
            if bytes >= byteOffset { break }
            bytes += UTF8.width(scalar)
            scalars += 1
        }
        return scalars
    }

    /// Reads PCRE2's name table: entries of a big-endian group number then a NUL-terminated name.
    private static func readNameTable(_ code: OpaquePointer) -> [(name: String, number: Int)] {
        var count: UInt32 = 0, entrySize: UInt32 = 0
        var table: UnsafePointer<UInt8>?
        guard pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMECOUNT), &count) == 0, count > 0,
              pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMEENTRYSIZE), &entrySize) == 0,
              pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMETABLE), &table) == 0,
              let table else { return [] }
        var result: [(name: String, number: Int)] = []
        for index in 0..<Int(count) {
            let entry = table + index * Int(entrySize)
            let number = Int(entry[0]) << 8 | Int(entry[1])
            let name = String(cString: entry + 2)
            result.append((name, number))
        }
        return result.sorted { $0.number < $1.number }
    }
}
