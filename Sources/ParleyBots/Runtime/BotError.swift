/// A bot that cannot run (a definition that does not compile, a storage failure at start):
/// the message names the file and position where there is one.
public struct BotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for people.
    public var message: String

    /// Creates an error with `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
