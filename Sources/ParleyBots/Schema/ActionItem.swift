import YAMLCoding

/// One action with the position of its key's value.
public struct ActionItem: Sendable {
    /// What to do.
    public var action: Action
    /// Where the action's value starts.
    public var mark: Mark
}
