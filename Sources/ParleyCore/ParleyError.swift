/// The one error type of the core SDK and its transports: a stable code a user can match,
/// a message for people, and context (field, channel, message id, …).
///
/// Codes are static members of a struct, not enum cases, so adding one never breaks users
/// (the async-http-client habit).
public struct ParleyError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let networkUnavailable = Code(rawValue: "networkUnavailable")
        public static let messageTooLarge = Code(rawValue: "messageTooLarge")
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        public static let rateLimited = Code(rawValue: "rateLimited")
        public static let notFound = Code(rawValue: "notFound")
        public static let invalidContent = Code(rawValue: "invalidContent")
        public static let timeout = Code(rawValue: "timeout")
        public static let conflict = Code(rawValue: "conflict")
        public static let notConnected = Code(rawValue: "notConnected")
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        public static let unauthorized = Code(rawValue: "unauthorized")
        public static let serverError = Code(rawValue: "serverError")
        public static let storage = Code(rawValue: "storage")
        public static let cancelled = Code(rawValue: "cancelled")
        /// A batch send stopped before this message (it was not attempted; send it again).
        public static let notSent = Code(rawValue: "notSent")
    }

    public var code: Code
    public var message: String
    /// For `rateLimited` (and any server that says so): wait this long before trying again.
    public var retryAfter: Duration?
    /// Which message, field, channel or user the error is about: for people (logs and
    /// messages); code decides on the typed fields instead.
    public var context: [String: String]
    /// The server's own code for the error (a Matrix `errcode`), when it gave one.
    public var serverCode: String?
    /// Set when the error is a failed attempt of a client's own reconnect loop.
    public var reconnectFailure: ReconnectFailure?

    public init(_ code: Code, _ message: String, retryAfter: Duration? = nil, context: [String: String] = [:],
                serverCode: String? = nil, reconnectFailure: ReconnectFailure? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.context = context
        self.serverCode = serverCode
        self.reconnectFailure = reconnectFailure
    }

    /// Transient errors are worth retrying with backoff; the others fail at once.
    public var isTransient: Bool {
        switch code {
        case .networkUnavailable, .rateLimited, .timeout, .serverError, .notConnected, .notSent: return true
        default: return false
        }
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let retryAfter { text += " (retry after \(retryAfter))" }
        if !context.isEmpty {
            text += " [" + context.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "]"
        }
        return text
    }
}
