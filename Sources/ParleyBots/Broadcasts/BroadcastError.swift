/// What went wrong with a broadcast: a stable code, a message for people, and where — the
/// recipients file and line, or the job.
public struct BroadcastError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code (static members, so new ones never break a `switch`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        /// Wraps a raw code.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A target that is not `user:ID` or `group:ID`, or an unreadable recipients file.
        public static let invalidRecipients = Code(rawValue: "invalidRecipients")
        /// A broadcast with nobody to send to.
        public static let noRecipients = Code(rawValue: "noRecipients")
        /// A message that cannot be built or sent to anyone (bad template, too large).
        public static let invalidMessage = Code(rawValue: "invalidMessage")
        /// No job with that id.
        public static let unknownJob = Code(rawValue: "unknownJob")
        /// The job is running in this process already.
        public static let alreadyRunning = Code(rawValue: "alreadyRunning")
        /// The job is not in a state the request applies to (resume a finished job, pause a
        /// cancelled one, start a job of another bot under its id).
        public static let invalidState = Code(rawValue: "invalidState")
        /// The sending bot is not running in this host.
        public static let botNotRunning = Code(rawValue: "botNotRunning")
        /// The job's storage failed.
        public static let storage = Code(rawValue: "storage")
        /// The host config cannot be read, is not YAML or is not a valid config: the message
        /// lists each problem at its file, line and column, as `parley check` shows them.
        public static let invalidConfig = Code(rawValue: "invalidConfig")
    }

    /// The code to match on.
    public var code: Code
    /// What is wrong and what is expected.
    public var message: String
    /// The recipients file as the user wrote it, when the error is about one.
    public var file: String?
    /// The 1-based line in `file`.
    public var line: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, file: String? = nil, line: Int? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// `recipients.txt:12: invalid target …`, or the message alone.
    public var description: String {
        switch (file, line) {
        case let (file?, line?): return "\(file):\(line): \(message)"
        case let (file?, nil): return "\(file): \(message)"
        default: return message
        }
    }
}
