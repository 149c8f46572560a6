import Foundation
import ParleyCore
import ParleyHTTPServer

/// A request's JSON object body, read field by field: each problem is a 400 naming the field,
/// and a field the endpoint does not know is one (a typo is not silently ignored).
struct JSONBody {
    /// The answer a bad body gets.
    struct Problem: Error {
        var message: String
        var response: HTTPServerResponse { OperationsRoutes.error(400, message) }
    }

    let fields: [String: JSONValue]

    /// Parses `data` (empty: no fields) as an object whose keys are all in `known`.
    init(_ data: Data, known: Set<String>) throws(Problem) {
        guard !data.isEmpty else {
            fields = [:]
            return
        }
        guard let value = try? JSONValue.parse(data) else { throw Problem(message: "the body is not JSON") }
        guard let object = value.objectValue else { throw Problem(message: "the body must be a JSON object") }
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw Problem(message: "unknown field '\(unknown)': expected " + known.sorted().joined(separator: ", "))
        }
        fields = object
    }

    /// Field `name` as a non-empty string; nil when absent (a problem when `required`).
    func string(_ name: String, required: Bool = false) throws(Problem) -> String? {
        guard let value = fields[name], value != .null else {
            if required { throw Problem(message: "\(name): required") }
            return nil
        }
        guard let text = value.stringValue, !text.isEmpty else { throw Problem(message: "\(name): expected a non-empty string") }
        return text
    }

    /// Field `name` as a list of strings; nil when absent.
    func strings(_ name: String) throws(Problem) -> [String]? {
        guard let value = fields[name], value != .null else { return nil }
        guard let items = value.arrayValue else { throw Problem(message: "\(name): expected a list of strings") }
        var texts: [String] = []
        for (index, item) in items.enumerated() {
            guard let text = item.stringValue else { throw Problem(message: "\(name)[\(index)]: expected a string") }
            texts.append(text)
        }
        return texts
    }

    /// Field `name` as an object of strings; nil when absent.
    func stringObject(_ name: String) throws(Problem) -> [String: String]? {
        guard let value = fields[name], value != .null else { return nil }
        guard let object = value.objectValue else { throw Problem(message: "\(name): expected an object") }
        var texts: [String: String] = [:]
        for (key, item) in object {
            guard let text = item.stringValue else { throw Problem(message: "\(name).\(key): expected a string") }
            texts[key] = text
        }
        return texts
    }
}
