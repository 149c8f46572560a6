import Foundation
import ParleyBots
import ParleyHTTPServer

/// `GET /console/api/events`: the agent's console kept current over Server-Sent Events.
extension ConsoleAPI {
    /// Answers at once with the stream; a task of its own writes to it (`ConsoleEventStream`)
    /// until the client goes, or the session ends. The CSRF value may come as `?csrf=`:
    /// `EventSource` cannot send headers.
    func events(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let caller: ConsoleCaller
        switch self.caller(request, csrfInQuery: true) {
        case .success(let found): caller = found
        case .failure(let refusal): return refusal.response
        }
        let stream = HTTPServerStream()
        let writer = ConsoleEventStream(running: running, sessions: sessions, conversations: conversations, caller: caller, stream: stream)
        let task = Task { await writer.run() }
        // The client went (or the server stopped): the writer stops at once, even mid-wait.
        stream.onClose { _ in task.cancel() }
        return .eventStream(stream)
    }
}
