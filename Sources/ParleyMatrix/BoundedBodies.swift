import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore
import Synchronization

/// The session delegate of `MatrixClient`: collects each answer's body up to its request's
/// limit and refuses a larger one without reading the rest, and follows redirects only
/// within the homeserver's origin (`SameOriginRedirects`).
///
/// A body read whole by `URLSession` could be as large as a hostile or broken server likes.
/// A `Content-Length` over the limit is refused before any byte of the body is read; without
/// one (chunked, or up to the end of the connection) the bytes are counted as they arrive and
/// the task is cancelled once they pass the limit.
final class BoundedBodies: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending {
        let limit: Int
        let method: String
        let path: String
        let continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
        var data = Data()
        var response: HTTPURLResponse?
        var refusal: ParleyError?
    }

    private let pending = Mutex<[Int: Pending]>([:])
    private let redirects = SameOriginRedirects()

    /// Registers `task` before it is resumed: its answer resumes `continuation`; `method`
    /// and `path` name the request in errors.
    func expect(_ task: URLSessionTask, limit: Int, method: String, path: String,
                continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) {
        pending.withLock {
            $0[task.taskIdentifier] = Pending(limit: limit, method: method, path: path, continuation: continuation)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let allowed = pending.withLock { pending -> Bool in
            guard var entry = pending[dataTask.taskIdentifier] else { return false }
            entry.response = response as? HTTPURLResponse
            if response.expectedContentLength > Int64(entry.limit) { refuse(&entry) }
            pending[dataTask.taskIdentifier] = entry
            return entry.refusal == nil
        }
        completionHandler(allowed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = pending.withLock { pending -> Bool in
            guard var entry = pending[dataTask.taskIdentifier], entry.refusal == nil else { return false }
            if entry.data.count + data.count > entry.limit { refuse(&entry) } else { entry.data.append(data) }
            pending[dataTask.taskIdentifier] = entry
            return entry.refusal != nil
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let path = entry.path
        if let refusal = entry.refusal {
            entry.continuation.resume(throwing: refusal)
        } else if let error {
            entry.continuation.resume(throwing: MatrixClient.transportError(error, path: path))
        } else if let response = entry.response {
            entry.continuation.resume(returning: (entry.data, response))
        } else {
            entry.continuation.resume(throwing: ParleyError(.serverError, "not an HTTP response", context: ["path": path]))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        redirects.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                             completionHandler: completionHandler)
    }

    /// Marks the answer refused (its bytes so far are dropped): `messageTooLarge`, naming the
    /// request and the limit.
    private func refuse(_ entry: inout Pending) {
        entry.refusal = ParleyError(
            .messageTooLarge,
            "the homeserver's answer to \(entry.method) \(entry.path) is larger than \(entry.limit) bytes: refused without reading the rest",
            context: ["path": entry.path, "limit": String(entry.limit)])
        entry.data = Data()
    }
}
