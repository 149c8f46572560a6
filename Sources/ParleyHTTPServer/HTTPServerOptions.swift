/// The limits of an `HTTPServer`: what one client can make it hold, and for how long.
public struct HTTPServerOptions: Sendable {
    /// The largest request body: a larger one is answered 413 and its connection closed — at
    /// once for a `Content-Length` over it (before the body is read), as soon as a streamed
    /// (chunked) body passes it. No more than this is ever held.
    public var maxBodyBytes = 1 << 20
    /// A connection that sends nothing for this long is closed (libmicrohttpd counts whole
    /// seconds: rounded up, at least 1). A connection waiting for its handler is not idle.
    public var idleTimeout: Duration = .seconds(30)
    /// Connections at once (at least 1); a new one beyond it is closed as soon as it is
    /// accepted, the open ones go on.
    public var maxConnections = 512
    /// Connections at once from one IP address; 0: no limit of its own.
    public var maxConnectionsPerAddress = 0
    /// The memory of one connection (libmicrohttpd's pool, at least 4 KiB): it bounds the
    /// request line and headers together, so a flood of headers gets libmicrohttpd's error
    /// answer (431 or 414).
    public var connectionMemory = 64 * 1024
    /// A handler that has not answered by then: the client gets 503, the handler's task is
    /// cancelled and its answer, if it still comes, dropped.
    public var handlerTimeout: Duration = .seconds(30)

    public init() {}
}

/// Why an `HTTPServer` could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What failed, with the address: "cannot listen on 127.0.0.1:8080: Address already in use".
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

extension Duration {
    /// Whole seconds, rounded up, within 1...UInt32.max: libmicrohttpd's idle timeout.
    var timeoutSeconds: UInt32 {
        let (seconds, attoseconds) = components
        guard seconds < Int64(UInt32.max) else { return .max }
        return UInt32(max(1, seconds + (attoseconds > 0 ? 1 : 0)))
    }

    /// Nanoseconds within a millisecond and about 30 years (a deadline that never overflows):
    /// what `MonotonicCondition.wait(until:)` deadlines are made of.
    package var clampedNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        let whole = UInt64(min(max(seconds, 0), 1_000_000_000)) * 1_000_000_000
        return max(whole + UInt64(max(attoseconds, 0) / 1_000_000_000), 1_000_000)
    }
}
