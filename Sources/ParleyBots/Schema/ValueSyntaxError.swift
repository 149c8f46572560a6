/// A scalar value (duration, rate, cron expression, …) that does not parse: what is wrong and
/// what is expected, plus the offset (in Unicode scalars) inside the value where it went wrong,
/// so validation can point at the exact column.
public struct ValueSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The full message, saying what is wrong and what is expected.
    public var message: String
    /// Unicode scalars from the start of the value to the offending part.
    public var offset: Int

    /// Creates an error.
    public init(_ message: String, offset: Int = 0) {
        self.message = message
        self.offset = offset
    }

    public var description: String { message }
}
