/// A command line that cannot be run: printed as `error: MESSAGE` plus the usage line, exit 64.
struct UsageError: Error, Sendable, Hashable {
    var message: String
    init(_ message: String) { self.message = message }
}
