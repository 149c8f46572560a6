extension YAMLTree {
    /// The tags the decoder gives a meaning to, in full form: the core schema's, the
    /// non-specific `!`, and `!!merge` (which makes a key a merge key, see `TreeView.isMergeKey`).
    static let knownTags: Set<String> = [
        "!", Node.Tags.str, Node.Tags.int, Node.Tags.float, Node.Tags.bool, Node.Tags.null,
        "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", Node.Tags.merge,
    ]

    /// An error for each node whose tag is not a known one, at the node (its tag starts it).
    ///
    /// A foreign tag (`!!python/object:os.system`, `!custom`) asks for a type this decoder
    /// does not construct: decoding on as if it were absent would hide what the file meant,
    /// and loaders elsewhere act on such tags, so a file carrying one is refused.
    func unknownTagErrors(in source: SourceFile) -> [YAMLError] {
        guard !tags.isEmpty else { return [] }
        let nodes = view
        return zip(taggedNodes, tags).compactMap { node, tag in
            Self.knownTags.contains(tag) ? nil
                : source.error(at: nodes.mark(node), "unknown tag '\(Self.shortForm(tag))': "
                    + "expected no tag or one of !!str, !!int, !!float, !!bool, !!null, !!map, !!seq, !")
        }
    }

    /// The tag as it is usually written: `!!name` for the YAML namespace, `!name` as is, a
    /// verbatim `!<…>` for anything else.
    private static func shortForm(_ tag: String) -> String {
        let yaml = "tag:yaml.org,2002:"
        if tag.hasPrefix(yaml) { return "!!" + tag.dropFirst(yaml.count) }
        return tag.hasPrefix("!") ? tag : "!<\(tag)>"
    }
}
