import CMicroHTTPD
import Foundation
import Synchronization

/// The daemon's context (passed to libmicrohttpd as an unretained `Unmanaged` pointer: the
/// `HTTPServer` holds it until the daemon has stopped). Three kinds of thread meet here: the
/// MHD thread, which suspends a connection once its request is in and starts the handler's
/// task; that task, which stores the answer and resumes the connection; and the watchdog,
/// which answers 503 for handlers past their time.
///
/// The requests whose handler runs form a list, oldest first. Every request gets the same
/// time, so the oldest has the nearest deadline: the watchdog sleeps until it, and no one
/// needs to wake the watchdog when a request starts or ends. `stop()` walks the same list,
/// since libmicrohttpd must not be stopped with a connection suspended (it panics); and it
/// ends the open streams, whose connections are suspended while they have nothing to send.
///
/// Lock order: `lock`, then a stream's, then libmicrohttpd's own (suspend and resume take
/// it); libmicrohttpd never calls in here holding it.
///
/// `@unchecked Sendable`: the mutable state is guarded by `lock`, as marked.
final class ServerContext: @unchecked Sendable {
    let handler: @Sendable (HTTPServerRequest) async -> HTTPServerResponse
    /// Answers what it can on the MHD thread itself (see `HTTPServer.init`).
    let immediate: (@Sendable (HTTPServerRequest) -> HTTPServerResponse?)?
    let maxBodyBytes: Int
    /// Nanoseconds.
    private let handlerTimeout: UInt64
    private let timeoutText: String
    /// `RequestState` objects alive: what the leak tests watch.
    let liveStates = Atomic<Int>(0)
    /// Connections libmicrohttpd holds (counted by `connectionChanged` on the MHD thread).
    let openConnections = Atomic<Int>(0)
    let maxConnections: Int

    private let lock = MonotonicCondition()
    // Guarded by `lock`:
    private var oldest: RequestState?
    private var newest: RequestState?
    private var stopped = false
    /// The streamed answers queued and not yet ended.
    private var streams: [ObjectIdentifier: HTTPServerStream] = [:]

    init(options: HTTPServerOptions, immediate: (@Sendable (HTTPServerRequest) -> HTTPServerResponse?)?,
         handler: @escaping @Sendable (HTTPServerRequest) async -> HTTPServerResponse) {
        self.handler = handler
        self.immediate = immediate
        maxBodyBytes = max(0, options.maxBodyBytes)
        // One below libmicrohttpd's own limit (see `HTTPServer.init`).
        maxConnections = min(max(1, options.maxConnections), Int(UInt32.max) - 1)
        handlerTimeout = options.handlerTimeout.clampedNanoseconds
        timeoutText = "the handler did not answer within \(options.handlerTimeout)"
    }

    /// On the MHD thread, the whole request in: suspends the connection and starts the
    /// handler's task. False when the server is stopping (the connection is then closed).
    func start(_ state: RequestState, _ request: HTTPServerRequest, on connection: OpaquePointer) -> Bool {
        lock.withLock {
            guard !stopped else { return false }
            // Under the lock, so that nothing can resume the connection before it is suspended.
            MHD_suspend_connection(connection)
            state.connection = connection
            state.deadline = MonotonicCondition.now() + handlerTimeout
            append(state)
            state.task = Task { [self] in
                let answer = await handler(request)
                deliver(answer, to: state)
            }
            return true
        }
    }

    /// The handler's answer: sent unless the watchdog or `stop()` answered first.
    private func deliver(_ answer: HTTPServerResponse, to state: RequestState) {
        let made = MHDAnswer(answer)
        let late = lock.withLock {
            guard !state.claimed else { return true }
            _ = claim(state, answer: made)
            return false
        }
        if late { made?.discard() }
    }

    /// On the MHD thread, the connection resumed: the answer to send; nil (close the
    /// connection) when the server is stopping.
    func takeAnswer(of state: RequestState) -> MHDAnswer? {
        lock.withLock {
            defer { state.answer = nil }
            return state.answer
        }
    }

    /// On the MHD thread: queues `answer` on `connection`; MHD_NO (close the connection) for
    /// none. A stream is bound to the connection and, while open, kept for `stop()` to end;
    /// one that ended other than by `finish()`, or was sent before, or comes as the server
    /// stops, is not sent.
    func queue(_ answer: MHDAnswer?, on connection: OpaquePointer) -> MHD_Result {
        guard let answer else { return .NO }
        if let stream = answer.stream {
            let sent = lock.withLock {
                guard !stopped else { return false }
                switch stream.attach(to: connection, socket: parley_mhd_socket(connection), context: self) {
                case .open: streams[ObjectIdentifier(stream)] = stream
                case .finished: break
                case .refused: return false
                }
                return true
            }
            guard sent else {
                answer.discard()
                return .NO
            }
        }
        return answer.queue(on: connection)
    }

    /// An ended stream: `stop()` need not end it.
    func forget(_ stream: HTTPServerStream) {
        lock.withLock { _ = streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// Under `lock`: answers `state`, takes it off the list and resumes its connection.
    /// Returns the handler's task, for the caller to cancel once the lock is released
    /// (cancellation handlers run synchronously; they must not run under it).
    private func claim(_ state: RequestState, answer: MHDAnswer?) -> Task<Void, Never>? {
        state.claimed = true
        state.answer = answer
        unlink(state)
        let task = state.task
        state.task = nil
        if let connection = state.connection { MHD_resume_connection(connection) }
        state.connection = nil
        return task
    }

    /// The watchdog thread's loop: answers 503 for handlers past their deadline and cancels
    /// them; ends with `stop()`. It sleeps until the oldest deadline or, with none, for one
    /// handler timeout (a request started meanwhile has a later deadline than that).
    func watch() {
        while true {
            let (expired, running) = lock.withLock {
                var expired: [Task<Void, Never>] = []
                let now = MonotonicCondition.now()
                // Bounded by the list: each turn takes one request off it.
                while !stopped, let state = oldest, state.deadline <= now {
                    if let task = claim(state, answer: MHDAnswer(.text(503, timeoutText))) { expired.append(task) }
                }
                if !stopped && expired.isEmpty { lock.wait(until: oldest?.deadline ?? now + handlerTimeout) }
                return (expired, !stopped)
            }
            for task in expired { task.cancel() }
            guard running else { return }
        }
    }

    /// Stops handing requests to the handler and claims every one whose handler still runs,
    /// without an answer: their connections are resumed (libmicrohttpd then closes them),
    /// their tasks cancelled. Ends the open streams, resuming the connections of those with
    /// nothing to send: nothing suspends a connection after this (no handler starts, a stream
    /// suspends only while open). Ends the watchdog. The daemon can be stopped after this.
    func stop() {
        let (abandoned, open) = lock.withLock {
            stopped = true
            lock.signal()
            var tasks: [Task<Void, Never>] = []
            // Bounded by the list: each turn takes one request off it.
            while let state = oldest {
                if let task = claim(state, answer: nil) { tasks.append(task) }
            }
            return (tasks, Array(streams.values))
        }
        for task in abandoned { task.cancel() }
        // Outside `lock`: an ended stream tells the server (`forget`), and its owner.
        for stream in open { stream.stop() }
    }

    /// Under `lock`: puts `state` at the end of the list.
    private func append(_ state: RequestState) {
        state.previous = newest
        newest?.next = state
        newest = state
        if oldest == nil { oldest = state }
    }

    /// Under `lock`: takes `state` off the list.
    private func unlink(_ state: RequestState) {
        if let previous = state.previous { previous.next = state.next } else { oldest = state.next }
        if let next = state.next { next.previous = state.previous } else { newest = state.previous }
        state.previous = nil
        state.next = nil
    }
}
