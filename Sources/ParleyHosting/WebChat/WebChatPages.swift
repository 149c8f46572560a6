import ParleyHTTPServer

/// The widget's page and assets under `/chat/` (`/chat/<bot>`, `/chat/assets/…`, `/chat/embed.js`).
enum WebChatPages {
    static func answer(_ request: HTTPServerRequest, parts: [String], door: WebChatDoor) -> HTTPServerResponse {
        guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET, HEAD") }
        // The pages themselves come with the widget's assets (ParleyWebAssets).
        return OperationsRoutes.error(404, "the widget page is not built yet")
    }
}
