import Foundation
import ParleyCore

/// The web door's pages, styles and scripts: plain HTML, CSS and JavaScript kept in the binary
/// (one file of this module per asset), no build step, no CDN. The listener's routes serve
/// them: `/chat/<bot>` (`widgetPage`), `/chat/assets/<name>` and `/chat/embed.js` (`asset`),
/// `/console` (`consolePage`) and `/console/assets/<name>`; each page with
/// `contentSecurityPolicy(frameAncestors:)`, which its markup keeps to: no inline script or
/// style, so the policy allows only files of the listener itself.
public enum WebAssets {
    public static let htmlType = "text/html; charset=utf-8"
    public static let cssType = "text/css; charset=utf-8"
    public static let javaScriptType = "text/javascript; charset=utf-8"

    /// The names under `/chat/assets/` (and `embed.js`, served at `/chat/embed.js`).
    public static let chatAssetNames = ["widget.css", "dom.js", "widget.js", "embed.js"]
    /// The names under `/console/assets/`.
    public static let consoleAssetNames = ["console.css", "dom.js", "console.js"]

    /// A style sheet or script by its file name (`widget.js`), with its content type; nil for
    /// any other name (a path with `/` or `..` included: it names nothing here).
    public static func asset(named name: String) -> (contentType: String, body: Data)? {
        switch name {
        case "widget.css": (cssType, Data(WidgetStyle.text.utf8))
        case "dom.js": (javaScriptType, Data(DOMScript.text.utf8))
        case "widget.js": (javaScriptType, Data(WidgetScript.text.utf8))
        case "embed.js": (javaScriptType, Data(EmbedScript.text.utf8))
        case "console.css": (cssType, Data(ConsoleStyle.text.utf8))
        case "console.js": (javaScriptType, Data(ConsoleScript.text.utf8))
        default: nil
        }
    }

    /// The chat widget's page for the bot `bot` (its id, as in `/chat/<bot>`) named `botName`;
    /// both are escaped for HTML. The script reads the id from the page (`data-bot`).
    public static func widgetPage(bot: String, botName: String) -> Data {
        let page = WidgetPage.template
            .replacingOccurrences(of: "{{bot}}", with: escapeHTML(bot))
            .replacingOccurrences(of: "{{botName}}", with: escapeHTML(botName))
        return Data(page.utf8)
    }

    /// The agents' console page.
    public static func consolePage() -> Data { Data(ConsolePage.text.utf8) }

    /// The `Content-Security-Policy` the pages are served with: everything from the listener
    /// itself only (images also from `https:` and `data:`), and framed only by the listener's own
    /// pages and `frameAncestors` (`web_chat.origins`: `https://host[:port]`; an entry that is
    /// not such an origin is left out, so it cannot add a directive).
    public static func contentSecurityPolicy(frameAncestors: [String] = []) -> String {
        let ancestors = (["'self'"] + frameAncestors.filter(isOrigin)).joined(separator: " ")
        return "default-src 'self'; img-src 'self' https: data:; style-src 'self'; script-src 'self'; "
            + "connect-src 'self'; frame-ancestors \(ancestors)"
    }

    /// `https://host[:port]` or `http://host[:port]`, nothing after: letters, digits, `.`, `-`
    /// (and `[`, `]`, `:` of an IPv6 address) only.
    static func isOrigin(_ value: String) -> Bool {
        let rest: Substring
        if value.hasPrefix("https://") { rest = value.dropFirst(8) }
        else if value.hasPrefix("http://") { rest = value.dropFirst(7) }
        else { return false }
        guard !rest.isEmpty else { return false }
        return rest.unicodeScalars.allSatisfy { scalar in
            (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar))) || ".-:[]".unicodeScalars.contains(scalar)
        }
    }

    /// Text made safe for HTML text and quoted attribute values: `& < > " '` as entities.
    public static func escapeHTML(_ text: String) -> String { HTMLText.escape(text) }
}
