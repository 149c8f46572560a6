import Foundation
import YAMLCoding

/// A JSON-shaped value, to compare a YAML node tree with the suite's `in.json`.
enum JSONLike: Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONLike])
    case object([String: JSONLike])

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        }
    }

    static func == (lhs: JSONLike, rhs: JSONLike) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    /// The value of a Foundation JSON object (booleans are NSNumbers of ObjC type "c").
    init?(foundation value: Any) {
        switch value {
        case is NSNull: self = .null
        case let string as String: self = .string(string)
        case let number as NSNumber:
            self = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]:
            var values: [JSONLike] = []
            for element in array {
                guard let converted = JSONLike(foundation: element) else { return nil }
                values.append(converted)
            }
            self = .array(values)
        case let object as [String: Any]:
            var members: [String: JSONLike] = [:]
            for (key, element) in object {
                guard let converted = JSONLike(foundation: element) else { return nil }
                members[key] = converted
            }
            self = .object(members)
        default: return nil
        }
    }

    /// The value of a node under the YAML 1.2 core schema; nil for keys JSON cannot hold.
    init?(node: Node) {
        switch node {
        case .scalar(let scalar): self = Self.resolve(scalar)
        case .sequence(let sequence):
            var values: [JSONLike] = []
            for element in sequence.elements {
                guard let converted = JSONLike(node: element) else { return nil }
                values.append(converted)
            }
            self = .array(values)
        case .mapping(let mapping):
            var members: [String: JSONLike] = [:]
            for pair in mapping.pairs {
                guard let key = pair.key.scalar?.value, let value = JSONLike(node: pair.value) else { return nil }
                members[key] = value
            }
            self = .object(members)
        }
    }

    private static func resolve(_ scalar: Node.Scalar) -> JSONLike {
        let text = scalar.value
        switch scalar.tag {
        case "tag:yaml.org,2002:str", "!": return .string(text)
        case "tag:yaml.org,2002:null": return .null
        case nil where scalar.style == .plain: break
        case nil: return .string(text)
        default: if scalar.style != .plain { return .string(text) }
        }
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .number(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .number(-.infinity)
        case ".nan", ".NaN", ".NAN": return .number(.nan)
        default: break
        }
        if text.wholeMatch(of: /[-+]?[0-9]+/) != nil, let value = Double(text) { return .number(value) }
        if text.wholeMatch(of: /0o[0-7]+/) != nil, let value = Int(text.dropFirst(2), radix: 8) { return .number(Double(value)) }
        if text.wholeMatch(of: /0x[0-9a-fA-F]+/) != nil, let value = Int(text.dropFirst(2), radix: 16) { return .number(Double(value)) }
        if text.wholeMatch(of: /[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?/) != nil, let value = Double(text) {
            return .number(value)
        }
        return .string(text)
    }

    /// Splits a stream of JSON documents (the suite's `in.json` for multi-document cases).
    static func documents(in text: String) throws -> [JSONLike] {
        var documents: [JSONLike] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\n") || bytes[index] == UInt8(ascii: "\t")
                || bytes[index] == UInt8(ascii: "\r") {
                index += 1
                continue
            }
            let end = documentEnd(bytes, from: index)
            let data = Data(bytes[index..<end])
            let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            guard let converted = JSONLike(foundation: object) else { throw CocoaError(.coderReadCorrupt) }
            documents.append(converted)
            index = end
        }
        return documents
    }

    /// Where the JSON value starting at `start` ends: matching brackets outside strings, or the
    /// end of a string, or the next whitespace for numbers and literals.
    private static func documentEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var depth = 0
        var inString = false
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return index + 1 }
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    if depth == 0 { return index }
                default: break
                }
            }
            index += 1
        }
        return bytes.count
    }
}
