import Foundation
import ParleyWebAssets
import Testing

/// The web door's assets: each there with its content type, the pages keeping to the
/// Content-Security-Policy (no inline script or style, no event-handler attributes), and the
/// scripts never building markup from strings.
@Suite struct WebAssetsTests {
    static let scripts = ["dom.js", "widget.js", "embed.js", "console.js"]
    static let styles = ["widget.css", "console.css"]

    static func text(_ name: String) throws -> String {
        let asset = try #require(WebAssets.asset(named: name), "no asset \(name)")
        return String(decoding: asset.body, as: UTF8.self)
    }

    static var pages: [(name: String, html: String)] {
        [("widget.html", String(decoding: WebAssets.widgetPage(bot: "support", botName: "Support"), as: UTF8.self)),
         ("console.html", String(decoding: WebAssets.consolePage(), as: UTF8.self))]
    }


    @Test func everyAssetIsThereWithItsContentType() throws {
        #expect(Set(WebAssets.chatAssetNames + WebAssets.consoleAssetNames) == Set(Self.scripts + Self.styles))
        for name in Self.scripts {
            let asset = try #require(WebAssets.asset(named: name))
            #expect(asset.contentType == "text/javascript; charset=utf-8", "\(name)")
            #expect(asset.body.count > 400, "\(name) is nearly empty")
            #expect(String(decoding: asset.body, as: UTF8.self).hasPrefix("\"use strict\";"), "\(name)")
        }
        for name in Self.styles {
            let asset = try #require(WebAssets.asset(named: name))
            #expect(asset.contentType == "text/css; charset=utf-8", "\(name)")
            #expect(asset.body.count > 500, "\(name) is nearly empty")
        }
        for name in ["widget.html", "console.html", "", "../widget.js", "widget.js/", "assets/widget.js", "WIDGET.JS"] {
            #expect(WebAssets.asset(named: name) == nil, "\(name) should name no asset")
        }
        #expect(WebAssets.htmlType == "text/html; charset=utf-8")
    }

    @Test func pagesReferenceTheirScriptsAndStylesByURLOnly() throws {
        let expected = ["widget.html": ("/chat/assets/widget.js", "/chat/assets/widget.css"),
                        "console.html": ("/console/assets/console.js", "/console/assets/console.css")]
        for (name, html) in Self.pages {
            let (script, style) = try #require(expected[name])
            #expect(html.hasPrefix("<!doctype html>"), "\(name)")
            #expect(html.contains("<script src=\"\(script)\" defer></script>"), "\(name) does not load \(script)")
            // The shared helpers first: deferred scripts run in order.
            let helpers = script.replacingOccurrences(of: name.hasPrefix("widget") ? "widget.js" : "console.js", with: "dom.js")
            #expect(html.contains("<script src=\"\(helpers)\" defer></script>\n<script src=\"\(script)\""), "\(name) does not load \(helpers) first")
            #expect(html.contains("<link rel=\"stylesheet\" href=\"\(style)\">"), "\(name) does not load \(style)")
            // Every <script> has a src and nothing between its tags; there is no <style>.
            let scriptTags = html.ranges(of: "<script").count
            #expect(scriptTags == 2, "\(name): \(scriptTags) script tags")
            let inlineScripts = try Regex(#"<script(?![^>]*\bsrc=)[^>]*>|<script[^>]*>[^<]+</script>"#).ignoresCase()
            #expect(html.ranges(of: inlineScripts).isEmpty, "\(name) has an inline script")
            #expect(!html.lowercased().contains("<style"), "\(name) has a <style> element")
            // No event-handler attributes (onclick=, onerror=, …) and no style= attributes.
            let handlers = try Regex(#"<[^>]*\son[a-z]+\s*="#).ignoresCase()
            #expect(html.ranges(of: handlers).isEmpty, "\(name) has an on…= attribute")
            let styleAttributes = try Regex(#"<[^>]*\sstyle\s*="#).ignoresCase()
            #expect(html.ranges(of: styleAttributes).isEmpty, "\(name) has a style= attribute")
            #expect(!html.lowercased().contains("javascript:"), "\(name)")
            // Every URL the page loads is the listener's own and is served.
            let sources = try Regex(#"(?:src|href)="([^"]*)""#)
            for match in html.matches(of: sources) {
                let url = String(try #require(match.output[1].substring))
                let asset = try #require(url.split(separator: "/").last.map(String.init))
                #expect(url.hasPrefix("/chat/assets/") || url.hasPrefix("/console/assets/"), "\(name) loads \(url)")
                #expect(WebAssets.asset(named: asset) != nil, "\(name) loads \(url), which is not served")
            }
        }
    }

    @Test func pagesAreAccessible() throws {
        for (name, html) in Self.pages {
            #expect(html.contains("<html lang=\"en\">"), "\(name)")
            #expect(html.contains("<main "), "\(name) has no <main> landmark")
            #expect(html.contains("role=\"log\" aria-live=\"polite\""), "\(name) has no live log")
            // Every input and text area has a label naming it.
            let fields = try Regex(#"<(?:input|textarea)[^>]*\sid="([^"]+)""#)
            let ids = html.matches(of: fields).compactMap { $0.output[1].substring.map(String.init) }
            #expect(!ids.isEmpty, "\(name)")
            for id in ids {
                #expect(html.contains("<label for=\"\(id)\""), "\(name): #\(id) has no label")
            }
            // Buttons are <button>s with a type.
            for tag in html.ranges(of: "<button").map({ html[$0.lowerBound...].prefix(while: { $0 != ">" }) }) {
                #expect(tag.contains("type=\""), "\(name): \(tag) has no type")
            }
        }
        let console = String(decoding: WebAssets.consolePage(), as: UTF8.self)
        #expect(console.contains("<input id=\"token\" name=\"token\" type=\"password\""))
    }

    @Test func theWidgetPageEscapesTheBotForHTML() throws {
        let page = String(decoding: WebAssets.widgetPage(bot: "x\"><script>alert(1)</script>",
                                                         botName: "<img src=x onerror=alert(1)> & 'Co'"), as: UTF8.self)
        #expect(!page.contains("<script>alert"))
        #expect(!page.contains("<img"))
        #expect(page.contains("data-bot=\"x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""))
        #expect(page.contains("<h1 id=\"chat-title\">&lt;img src=x onerror=alert(1)&gt; &amp; &#39;Co&#39;</h1>"))
        #expect(!page.contains("{{"), "a placeholder was left")
        let plain = String(decoding: WebAssets.widgetPage(bot: "support", botName: "Support"), as: UTF8.self)
        #expect(plain.contains("data-bot=\"support\""))
        #expect(plain.contains("<title>Chat with Support</title>"))
    }

    @Test func scriptsNeverBuildMarkupFromStrings() throws {
        let forbidden = [#"\.innerHTML\b"#, #"\.outerHTML\b"#, #"\binsertAdjacentHTML\b"#, #"\bdocument\.write"#,
                         #"\beval\s*\("#, #"\bnew\s+Function\b"#, #"\bsetTimeout\s*\(\s*["'`]"#, #"\bsetInterval\s*\(\s*["'`]"#,
                         #"\bcreateContextualFragment\b"#, #"\bsrcdoc\b"#, #"setAttribute\(\s*["']on"#,
                         #"setAttribute\(\s*["']style"#, #"\.cssText\b"#]
        for name in Self.scripts {
            let script = try Self.text(name)
            for pattern in forbidden {
                #expect(script.ranges(of: try Regex(pattern)).isEmpty, "\(name) uses \(pattern)")
            }
        }
    }

    @Test func theContentSecurityPolicyAllowsOnlyTheListenerAndTheAllowedFramers() {
        #expect(WebAssets.contentSecurityPolicy() == "default-src 'self'; img-src 'self' https: data:; style-src 'self'; "
            + "script-src 'self'; connect-src 'self'; frame-ancestors 'self'")
        #expect(WebAssets.contentSecurityPolicy(frameAncestors: ["https://shop.example", "http://localhost:8080"])
            .hasSuffix("frame-ancestors 'self' https://shop.example http://localhost:8080"))
        // An entry that is not an origin cannot add a source or a directive.
        let policy = WebAssets.contentSecurityPolicy(frameAncestors: ["https://a.example; script-src *", "*", "https://b.example/path", "ftp://c.example"])
        #expect(policy.hasSuffix("frame-ancestors 'self'"))
    }

    @Test func escapingCoversTheFiveCharacters() {
        #expect(WebAssets.escapeHTML(#"<a href="x" title='y'>&</a>"#) == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
        #expect(WebAssets.escapeHTML("Zoë 👋") == "Zoë 👋")
    }
}
