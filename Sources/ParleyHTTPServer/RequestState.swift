import Foundation

/// One request, from its headers to its answer. libmicrohttpd keeps it in its per-request
/// pointer (`con_cls`) as a retained `Unmanaged` reference, which the completion callback
/// releases: libmicrohttpd calls it for every request the access handler saw, however the
/// connection ends (answered, aborted mid-body, timed out, server stopped).
///
/// `@unchecked Sendable`: the handler's task and the watchdog reach it from other threads,
/// but only its guarded fields, and only under the server's lock (see `ServerContext`).
final class RequestState: @unchecked Sendable {
    private let context: ServerContext

    // The MHD thread's own (the handler's task never reads them):
    /// The body so far; handed to the request (and emptied) when the handler starts.
    var body = Data()
    /// Whether the handler was started: the next access-handler call is the resumed one.
    var started = false

    // Guarded by the server's lock, from the handler's start on:
    /// The suspended connection (valid until it is resumed, which is done once).
    var connection: OpaquePointer?
    /// When the handler's time is up (`MonotonicCondition.now()` nanoseconds).
    var deadline: UInt64 = 0
    /// The handler's task, to cancel when its answer is no longer wanted.
    var task: Task<Void, Never>?
    /// Answered (by the handler, the watchdog or `stop()`): whoever claims it first resumes
    /// the connection, and nobody touches the connection after.
    var claimed = false
    /// What the resumed connection sends; nil once queued, or when the server is stopping.
    var answer: MHDAnswer?
    /// The list of requests whose handler runs, oldest first (see `ServerContext`). Strong
    /// both ways: every state is unlinked when it is claimed, which breaks the cycle.
    var previous: RequestState?
    var next: RequestState?

    init(context: ServerContext) {
        self.context = context
        context.liveStates.add(1, ordering: .relaxed)
    }

    deinit {
        // Claimed with an answer the connection never sent (closed by the server's stop).
        answer?.discard()
        context.liveStates.subtract(1, ordering: .relaxed)
    }
}
