internal import CYAML

/// Owns a libyaml parser over a private copy of the text and hands out its events one by one.
/// Not Sendable: libyaml state is mutated in place. Frees everything in `deinit`.
final class EventParser {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let event: UnsafeMutablePointer<yaml_event_t>
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private var hasEvent = false
    let source: SourceFile

    init(text: String, file: String) throws(YAMLErrors) {
        source = SourceFile(name: file, text: text)
        parser = .allocate(capacity: 1)
        event = .allocate(capacity: 1)
        // libyaml reads straight from memory; keep a stable copy (never empty: allocate needs ≥ 1).
        bytes = .allocate(capacity: max(1, text.utf8.count))
        _ = bytes.initialize(from: text.utf8)
        guard yaml_parser_initialize(parser) == 1 else {
            bytes.deallocate(); event.deallocate(); parser.deallocate()
            throw YAMLErrors([source.error(at: Mark(line: 1, column: 1), "libyaml could not allocate a parser")])
        }
        yaml_parser_set_input_string(parser, bytes.baseAddress, text.utf8.count)
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
    }

    deinit {
        if hasEvent { yaml_event_delete(event) }
        yaml_parser_delete(parser)
        bytes.deallocate()
        event.deallocate()
        parser.deallocate()
    }

    /// The next event, valid until the following call; nil after the stream end.
    func next() throws(YAMLErrors) -> UnsafeMutablePointer<yaml_event_t>? {
        if hasEvent {
            if event.pointee.type == YAML_STREAM_END_EVENT { return nil }
            yaml_event_delete(event)
            hasEvent = false
        }
        guard yaml_parser_parse(parser, event) == 1 else { throw YAMLErrors([syntaxError()]) }
        hasEvent = true
        return event
    }

    /// libyaml's problem and context as one positioned error.
    private func syntaxError() -> YAMLError {
        let state = parser.pointee
        var message = state.problem.map { String(cString: $0) } ?? "invalid YAML"
        let mark: Mark
        if state.error == YAML_READER_ERROR {
            // Reader errors carry a byte offset instead of a mark.
            mark = source.mark(atByteOffset: state.problem_offset)
            if state.problem_value >= 0 {
                message += " (byte 0x" + String(state.problem_value, radix: 16, uppercase: true) + ")"
            }
        } else {
            mark = Mark(state.problem_mark)
        }
        if let context = state.context {
            message += " (" + String(cString: context) + " at " + Mark(state.context_mark).description + ")"
        }
        return source.error(at: mark, message)
    }
}

extension Mark {
    /// Converts libyaml's 0-based mark.
    init(_ mark: yaml_mark_t) {
        self.init(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
}

extension SourceFile {
    /// The mark of a UTF-8 byte offset (columns count Unicode scalars, as libyaml does).
    func mark(atByteOffset offset: Int) -> Mark {
        var line = 1
        var column = 1
        for (index, byte) in text.utf8.enumerated() {
            if index >= offset { break }
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return Mark(line: line, column: column)
    }
}
