import Foundation
import ParleyHTTPServer
import ParleyWebAssets

/// The widget's page and assets under `/chat/` (`/chat/<bot>`, `/chat/assets/…`, `/chat/embed.js`),
/// from `ParleyWebAssets`. The page comes with the Content-Security-Policy its markup keeps to,
/// framed only by the listener's own pages and `web_chat.origins`.
enum WebChatPages {
    static func answer(_ request: HTTPServerRequest, parts: [String], door: WebChatDoor) -> HTTPServerResponse {
        guard OperationsRoutes.isRead(request.method) else { return OperationsRoutes.methodNotAllowed("GET, HEAD") }
        switch parts.count {
        case 1 where parts[0] == "embed.js":
            return asset("embed.js")
        case 2 where parts[0] == "assets" && WebAssets.chatAssetNames.contains(parts[1]):
            return asset(parts[1])
        case 1 where parts[0] != "assets":
            let bot = parts[0]
            guard door.settings.bots.contains(bot) else { return OperationsRoutes.error(404, "no web chat with '\(bot)'") }
            let page = WebAssets.widgetPage(bot: bot, botName: door.hub.user(bot)?.displayName ?? bot)
            return HTTPServerResponse(status: 200, headers: pageHeaders(frameAncestors: door.settings.origins.sorted()), body: page)
        default:
            return OperationsRoutes.error(404, "no such page: \(request.path)")
        }
    }

    /// A style sheet or script of `ParleyWebAssets`, which must exist.
    static func asset(_ name: String) -> HTTPServerResponse {
        guard let asset = WebAssets.asset(named: name) else { return OperationsRoutes.error(404, "no such asset: \(name)") }
        return HTTPServerResponse(status: 200, headers: [(name: "Content-Type", value: asset.contentType),
                                                         (name: "Cache-Control", value: "no-cache"),
                                                         (name: "X-Content-Type-Options", value: "nosniff")],
                                  body: asset.body)
    }

    /// The headers of a page: its type, the policy, no sniffing, no referrer.
    static func pageHeaders(frameAncestors: [String]) -> [(name: String, value: String)] {
        [(name: "Content-Type", value: WebAssets.htmlType),
         (name: "Content-Security-Policy", value: WebAssets.contentSecurityPolicy(frameAncestors: frameAncestors)),
         (name: "Cache-Control", value: "no-cache"),
         (name: "X-Content-Type-Options", value: "nosniff"),
         (name: "Referrer-Policy", value: "no-referrer")]
    }
}
