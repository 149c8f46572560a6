import Foundation

/// An HTTP/1.1 client on libcurl: requests from any task, each with its own timeout and
/// answer-size limit, over connections kept alive between requests; cancelling the calling
/// task stops its request at once (a long-poll does not hold up a shutdown).
///
/// Why not `URLSession`: on Linux it is libcurl too, under layers of dispatch queues and
/// sources that woke several threads per request, and copied every header and cookie through
/// Foundation types. A bot's reply is a couple of small requests; that overhead was most of
/// its CPU. Redirects are not followed: the caller sees the 3xx and decides.
///
///     let client = HTTPClient()
///     let answer = try await client.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:8008/health",
///                                                     timeout: .seconds(5), responseLimit: 1 << 20))
public final class HTTPClient: Sendable {
    private let loop: CurlLoop

    /// A client with its own connections and its own thread (ended with the client).
    public init(maxConnectionsPerHost: Int = 16) {
        loop = CurlLoop(maxConnectionsPerHost: maxConnectionsPerHost)
    }

    deinit {
        loop.stop()
    }

    /// Sends `request` and returns the answer, whatever its status.
    public func send(_ request: HTTPRequest) async throws(HTTPFailure) -> HTTPResponse {
        let transfer = CurlTransfer(request: request)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    transfer.continuation = continuation
                    loop.submit(transfer)
                }
            } onCancel: { [loop] in
                loop.cancel(transfer)
            }
        } catch let failure as HTTPFailure {
            throw failure
        } catch {
            throw .network("\(error)")
        }
    }
}
