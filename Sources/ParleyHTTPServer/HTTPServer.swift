import CMicroHTTPD
import Foundation
import Glibc
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: one thread polls every connection with epoll and
/// libmicrohttpd parses the requests; each complete request (headers and body) goes to the
/// async `handler` in a task of its own while its connection is suspended, and the answer is
/// sent when the task returns it. Connections are kept alive between requests.
///
///     let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
///         request.path == "/health" ? .text(200, "ok") : .text(404, "no such page")
///     }
///     print("listening on port \(server.port)")
///     server.stop()
///
/// What a client can make it hold is bounded by `HTTPServerOptions`: body size, idle time,
/// connections, header memory, and the handler's own time (past it the client gets 503).
public final class HTTPServer: Sendable {
    /// The port it listens on (the one the system picked, for port 0).
    public let port: Int
    private let context: ServerContext
    /// The daemon until `stop()`; the lock also makes a second `stop()` wait for the first.
    private let daemon: Mutex<OpaquePointer?>

    /// Starts listening on `host` (an IPv4 or IPv6 literal, e.g. "127.0.0.1", "::1",
    /// "0.0.0.0"; an IPv6 one takes IPv6 connections only) and `port` (0: the system picks
    /// one). Throws if the address cannot be listened on, naming it and the reason.
    ///
    /// `immediate`, when given, sees each request first, on libmicrohttpd's thread: an answer
    /// it returns is sent at once, with no task, no suspended connection and no thread hop
    /// (a health probe read from a lock); nil passes the request to `handler`. It must not
    /// block or wait: every connection waits while it runs.
    public init(host: String, port: Int, options: HTTPServerOptions = .init(),
                immediate: (@Sendable (HTTPServerRequest) -> HTTPServerResponse?)? = nil,
                handler: @escaping @Sendable (HTTPServerRequest) async -> HTTPServerResponse) throws(HTTPServerError) {
        guard let address = ListenAddress(host: host, port: port) else {
            throw HTTPServerError("cannot listen on \(host):\(port): not an IPv4 or IPv6 address and a port")
        }
        let context = ServerContext(options: options, immediate: immediate, handler: handler)
        // One internal thread polling with epoll. MHD_ALLOW_SUSPEND_RESUME includes MHD_USE_ITC
        // (8192 | MHD_USE_ITC in 0.9.75): the inter-thread channel that wakes that thread when a
        // handler's task resumes a connection. No MHD_USE_ERROR_LOG: libmicrohttpd would write
        // to stderr about every malformed request.
        //
        // SIGPIPE: on Linux, libmicrohttpd 0.9.75 sends with MSG_NOSIGNAL and blocks SIGPIPE in
        // its own thread; it could raise it only through sendfile(), used for file-descriptor
        // responses, which this server never makes. Its one write of its own (the 413 of
        // `refuseStreamedBody`) passes MSG_NOSIGNAL too.
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if address.family == AF_INET6 { flags |= MHD_USE_IPv6.rawValue }
        // The connection limit is the accept policy's (`acceptPolicy`): it refuses a connection
        // beyond `maxConnections` at once. At libmicrohttpd's own limit, one above, its epoll
        // loop would stop accepting instead, leaving new connections waiting in the backlog.
        let started = address.withSockaddr { sockaddr in
            var settings = parley_mhd_settings(
                flags: flags, address: sockaddr, accept: acceptPolicy, handler: accessHandler, completed: requestCompleted,
                connection: connectionChanged, context: Unmanaged.passUnretained(context).toOpaque(),
                connection_memory: max(4_096, options.connectionMemory), connection_limit: UInt32(context.maxConnections + 1),
                per_address_limit: UInt32(clamping: max(0, options.maxConnectionsPerAddress)), timeout_seconds: options.idleTimeout.timeoutSeconds)
            return parley_mhd_start(&settings)
        }
        guard let started else {
            throw HTTPServerError("cannot listen on \(address.text): \(address.bindFailure())")
        }
        let bound = Int(parley_mhd_bound_port(started))
        self.port = bound == 0 ? port : bound
        self.context = context
        daemon = Mutex<OpaquePointer?>(started)
        let watchdog = Thread { context.watch() }
        watchdog.name = "parley-http-server-watchdog"
        watchdog.start()
    }

    deinit {
        stop()
    }

    /// Stops: closes the listening socket and every connection; handlers still running are
    /// cancelled and their answers dropped. Returns once libmicrohttpd's thread has ended;
    /// calling it again does nothing.
    public func stop() {
        daemon.withLock { daemon in
            guard let running = daemon else { return }
            daemon = nil
            // First: libmicrohttpd must not be stopped with a connection suspended.
            context.stop()
            MHD_stop_daemon(running)
        }
    }

    /// Request states alive (created and not yet freed): 0 when nothing leaked.
    var liveRequestStates: Int { context.liveStates.load(ordering: .relaxed) }

    /// Connections libmicrohttpd holds.
    var openConnections: Int { context.openConnections.load(ordering: .relaxed) }
}
