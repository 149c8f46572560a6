/// Parses a single-document YAML text into a node tree with marks.
///
/// An empty text gives a null scalar at 1:1. Syntax errors, unknown aliases, alias bombs,
/// duplicate keys, bad merge keys and a second document are errors.
public func parseYAML(_ text: String, file: String) throws(YAMLErrors) -> Node {
    let builder = try TreeBuilder.build(text, file: file)
    var problems = builder.problems
    let source = SourceFile(name: file, text: text)
    if builder.documents.count > 1 {
        problems.append(source.error(at: builder.tree.view.mark(builder.documents[1]), "expected one YAML document, found several"))
    }
    guard problems.isEmpty else { throw YAMLErrors(problems) }
    guard let root = builder.documents.first else { return .null(at: Mark(line: 1, column: 1)) }
    return builder.tree.view.node(root)
}

/// Parses a multi-document YAML stream into one node tree per document.
///
/// `mergeKeys: false` keeps `<<` as an ordinary key (pure YAML 1.2).
public func parseYAMLDocuments(_ text: String, file: String, mergeKeys: Bool = true) throws(YAMLErrors) -> [Node] {
    var options = TreeBuilder.Options()
    options.mergeKeys = mergeKeys
    let builder = try TreeBuilder.build(text, file: file, options: options)
    guard builder.problems.isEmpty else { throw YAMLErrors(builder.problems) }
    return builder.documents.map(builder.tree.view.node)
}
