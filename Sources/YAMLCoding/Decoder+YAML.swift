extension Decoder {
    /// The mark of the node being decoded; nil for decoders other than `YAMLDecoder`'s.
    public var yamlMark: Mark? {
        (self as? NodeDecoder).map { $0.context.tree.mark($0.node) }
    }

    /// The node being decoded, for custom `init(from:)` that branch on its shape (a scalar or
    /// a mapping) instead of trying one type after another; nil for other decoders.
    public var yamlNode: Node? {
        (self as? NodeDecoder).map { $0.context.tree.node($0.node) }
    }
}
