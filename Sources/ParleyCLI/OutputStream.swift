
/// The two output streams of a command.
public enum OutputStream: Sendable, Hashable {
    case standardOutput
    case standardError
}
