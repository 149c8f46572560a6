import CMicroHTTPD
import Glibc
import Synchronization

/// The body of a streamed answer (`HTTPServerResponse.stream`), e.g. Server-Sent Events: the
/// handler returns the answer at once and keeps the stream, writing to it for as long as it
/// likes; the client gets each write as it comes (chunked transfer encoding). A stream is
/// sent in one answer only.
///
///     let events = HTTPServerStream()
///     events.onClose { end in subscription.cancel() }
///     events.write("id: 1\ndata: hello\n\n")
///     return .eventStream(events)
///
/// What was written and not yet taken by the server is bounded by `limit`: a client that
/// reads slower than the producer writes would otherwise make it grow without end. Past it
/// the stream ends (`.overflowed`) and the connection is closed.
///
/// An idle stream holds no thread and does not time out: its connection is suspended until
/// the next write (see `MHDStreamReader`). But while suspended the server cannot see the
/// client go: a gone client is noticed at the next write that reaches the socket. So the
/// owner writes something now and then — for Server-Sent Events a comment, `": keep-alive\n\n"`
/// — which also keeps proxies from closing a quiet connection.
public final class HTTPServerStream: Sendable {
    /// Why a stream ended.
    public enum End: Sendable, Equatable {
        /// `finish()` was called (what was written is still sent).
        case finished
        /// The connection ended first: the client went away, the server could not send, or
        /// the answer was never sent (dropped, a `HEAD` request).
        case disconnected
        /// More than `limit` bytes waited for a client that did not read them.
        case overflowed
        /// The server stopped.
        case serverStopped
    }

    /// The most bytes written and not yet taken by the server.
    public let limit: Int
    private let state = Mutex(StreamState())

    public init(limit: Int = 256 << 10) {
        self.limit = max(1, limit)
    }

    /// Appends `bytes` to what the client gets. False (and nothing written) once the stream
    /// has ended; writing past `limit` ends it.
    @discardableResult
    public func write(_ bytes: some Collection<UInt8>) -> Bool {
        let (written, ended) = state.withLock { state -> (Bool, Closing?) in
            guard state.end == nil else { return (false, nil) }
            guard state.waiting + bytes.count <= limit else { return (false, state.close(.overflowed)) }
            state.pending.append(contentsOf: bytes)
            state.wake()
            return (true, nil)
        }
        ended?.run(for: self)
        return written
    }

    @discardableResult
    public func write(_ text: String) -> Bool { write(text.utf8) }

    /// Ends the stream once what was written has been sent: the answer ends properly, the
    /// connection may serve further requests. Writes after it are refused.
    public func finish() {
        state.withLock { $0.close(.finished) }?.run(for: self)
    }

    /// Why it ended; nil while open.
    public var end: End? { state.withLock { $0.end } }

    public var isClosed: Bool { end != nil }

    /// Runs `action` once, when the stream ends (at once, here, if it has). It runs on the
    /// thread that ended the stream, possibly the server's network thread: it must not block.
    public func onClose(_ action: @escaping @Sendable (End) -> Void) {
        let ended = state.withLock { state -> End? in
            if state.end == nil { state.onClose.append(action) }
            return state.end
        }
        if let ended { action(ended) }
    }

    // The server's side (see `MHDStreamReader`).

    /// What the server does with a stream it is about to send.
    enum Attachment {
        /// Send it, and end it at `stop()`.
        case open
        /// Send what was written before `finish()`: it ends by itself.
        case finished
        /// Do not send it: it ended otherwise, or went in another answer before.
        case refused
    }

    /// On the MHD thread, as the answer is queued: binds the stream to its connection.
    func attach(to connection: OpaquePointer, socket: Int32, context: ServerContext) -> Attachment {
        state.withLock { state in
            guard !state.sent, state.end == nil || state.end == .finished else { return .refused }
            state.sent = true
            state.connection = MHDConnection(pointer: connection)
            state.socket = socket
            state.context = context
            return state.end == nil ? .open : .finished
        }
    }

    /// On the MHD thread: copies what is waiting into `buffer`. With nothing waiting on an
    /// open stream, suspends the connection until the next write or end (and returns 0);
    /// see `MHDStreamReader` for why that is allowed here.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let buffer = ReaderBuffer(bytes: buffer)
        return state.withLock { state in
            if state.waiting > 0 { return state.take(into: buffer) }
            switch state.end {
            case nil:
                state.suspend()
                return 0
            case .finished: return MHDStreamReader.endOfStream
            case .overflowed where state.socket >= 0:
                // Not MHD_CONTENT_READER_END_WITH_ERROR: libmicrohttpd 0.9.75 then marks the
                // connection closed but leaves it (socket, counts, memory) until its next turn
                // on that connection, which may be as late as the idle timeout. One byte it
                // cannot send — `close` shut the socket down (an overflow before `attach` is
                // never sent) — ends the connection through its write path, which cleans it up
                // at once. (An empty line: nothing to a Server-Sent Events client, were it ever
                // to arrive.)
                guard let first = buffer.bytes.baseAddress, buffer.bytes.count > 0 else { return MHDStreamReader.endWithError }
                first.storeBytes(of: 10, as: UInt8.self)
                return 1
            case .overflowed, .disconnected, .serverStopped:
                // At `stop()` MHD_stop_daemon then closes and cleans up every connection. (Not
                // asked after `released`; an overflow without a socket cannot be shut down.)
                return MHDStreamReader.endWithError
            }
        }
    }

    /// libmicrohttpd is done with the answer (sent, or its connection closed): the
    /// connection is not the stream's any more. An open stream ends `.disconnected`.
    func released() {
        state.withLock { state -> Closing? in
            state.connection = nil
            state.socket = -1
            state.suspended = false
            return state.end == nil ? state.close(.disconnected) : nil
        }?.run(for: self)
    }

    /// `stop()`: ends the stream and resumes its connection, which libmicrohttpd then closes.
    func stop() {
        state.withLock { $0.close(.serverStopped) }?.run(for: self)
    }
}

/// What is left to do, outside the lock, when a stream has just ended: tell the owner, and
/// the server (which no longer has to stop it).
struct Closing {
    let end: HTTPServerStream.End
    let actions: [@Sendable (HTTPServerStream.End) -> Void]
    let context: ServerContext?

    func run(for stream: HTTPServerStream) {
        context?.forget(stream)
        for action in actions { action(end) }
    }
}

/// A stream's state, guarded by its mutex. Lock order: the server's lock, then a stream's,
/// then libmicrohttpd's (suspend and resume take it).
struct StreamState: ~Copyable {
    /// Written bytes; those before `head` were taken already.
    var pending: [UInt8] = []
    var head = 0
    var end: HTTPServerStream.End?
    var onClose: [@Sendable (HTTPServerStream.End) -> Void] = []
    /// The connection, from `attach` until libmicrohttpd releases the answer, and its socket.
    var connection: MHDConnection?
    var socket: Int32 = -1
    var context: ServerContext?
    /// Suspended by `read` because nothing was waiting; only while the stream is open.
    var suspended = false
    /// Attached once: a stream goes in one answer.
    var sent = false

    var waiting: Int { pending.count - head }

    /// Copies out as much as fits. The taken prefix is dropped when all was taken, or when it
    /// is large: the copy stays proportional to what was sent. An emptied buffer keeps a small
    /// capacity only: after a burst, thousands of quiet streams must not each hold `limit`.
    mutating func take(into buffer: ReaderBuffer) -> Int {
        let count = min(buffer.bytes.count, waiting)
        pending.withUnsafeBytes { buffer.bytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[head..<(head + count)])) }
        head += count
        if head == pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= 16 << 10)
            head = 0
        } else if head >= 64 << 10 {
            pending.removeFirst(head)
            head = 0
        }
        return count
    }

    /// Suspends the connection, once: libmicrohttpd may ask again while it is suspended (an
    /// HTTP/1.0 answer, read from its write path, is asked again from its idle path), and
    /// suspending twice would corrupt its lists.
    mutating func suspend() {
        guard !suspended, let connection else { return }
        MHD_suspend_connection(connection.pointer)
        suspended = true
    }

    /// Resumes the connection if `read` suspended it: it has something to do now.
    mutating func wake() {
        guard suspended, let connection else { return }
        suspended = false
        MHD_resume_connection(connection.pointer)
    }

    /// Ends the stream, if open: drops what waits (unless finished: that is still sent) and
    /// wakes the connection so that libmicrohttpd ends the answer. An overflow also shuts the
    /// socket down: a client that does not read would otherwise hold the connection until
    /// the idle timeout. The socket is still the connection's: libmicrohttpd releases the
    /// answer (`released`, under this lock) before it closes it.
    mutating func close(_ reason: HTTPServerStream.End) -> Closing? {
        guard end == nil else { return nil }
        end = reason
        if reason != .finished {
            pending = []
            head = 0
        }
        if reason == .overflowed, socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
        wake()
        defer { onClose = [] }
        return Closing(end: reason, actions: onClose, context: context)
    }
}

/// A libmicrohttpd connection as a stream keeps it. `@unchecked Sendable`: the pointer is used
/// under the stream's lock only, while libmicrohttpd holds the answer (`StreamState`).
struct MHDConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The buffer libmicrohttpd's content reader fills. `@unchecked Sendable`: it is written on
/// the MHD thread, within the call that lent it, and nowhere else.
struct ReaderBuffer: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer
}
