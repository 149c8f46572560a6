import YAMLCoding

/// Decodes `text` as `T` and returns the whole rendered error report, or nil if it decoded.
func renderedErrors<T: Decodable>(_ type: T.Type, _ text: String, file: String = "test.yaml",
                                  environment: [String: String] = [:]) -> String? {
    do {
        _ = try YAMLDecoder(environment: environment).decode(T.self, from: text, file: file)
        return nil
    } catch {
        return error.description
    }
}

/// The errors of parsing `text` as a node tree, or nil if it parsed.
func parseErrors(_ text: String, file: String = "test.yaml") -> String? {
    do {
        _ = try parseYAML(text, file: file)
        return nil
    } catch {
        return error.description
    }
}
