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

        /// Keeps the response; false (refused) when its `Content-Length` is over the limit.
        mutating func accept(_ response: URLResponse) -> Bool {
            self.response = response as? HTTPURLResponse
            if response.expectedContentLength > Int64(limit) { refuse() }
            return refusal == nil
        }

        /// Adds `bytes` unless they take the body past the limit; true when that refuses it now.
        /// Called in place (`pending[id]?.take`): a copy of the entry would make each append
        /// copy the whole body so far.
        mutating func take(_ bytes: Data) -> Bool {
            guard refusal == nil else { return false }
            guard data.count + bytes.count <= limit else {
                refuse()
                return true
            }
            data.append(bytes)
            return false
        }

        /// Marks the answer refused (its bytes so far are dropped): `messageTooLarge`, naming
        /// the request and the limit.
        mutating func refuse() {
            refusal = ParleyError(
                .messageTooLarge,
                "the homeserver's answer to \(method) \(path) is larger than \(limit) bytes: refused without reading the rest",
                context: ["path": path, "limit": String(limit)])
            data = Data()
        }
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
        let allowed = pending.withLock { $0[dataTask.taskIdentifier]?.accept(response) ?? false }
        completionHandler(allowed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = pending.withLock { $0[dataTask.taskIdentifier]?.take(data) ?? false }
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
}
