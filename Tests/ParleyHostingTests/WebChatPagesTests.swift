import Foundation
import ParleyBots
import ParleyCore
import ParleyHosting
import ParleyHTTP
import ParleyTesting
import Testing
import YAMLCoding

/// The widget's page and assets as the listener serves them (ParleyWebAssets): types, the
/// Content-Security-Policy with the allowed framers, and nothing for other names.
@Suite struct WebChatPagesTests {
    static func located(_ text: String) -> Located<String> { OperationsListenerTests.located(text) }

    @Test func theWidgetPageAndItsAssetsAreServedWithThePolicy() async throws {
        let (running, alice) = try await HostMetricsTests.host(users: ["alice"])
        let webChat = WebChatConfig(bots: Located(value: [Self.located("desk")], mark: Mark(line: 1, column: 1)),
                                    origins: [Self.located("https://shop.example")])
        let http = HTTPConfig(listen: Self.located("127.0.0.1:0"), webChat: webChat)
        let listener = try #require(try OperationsListener.start(running, http: http))
        defer { listener.stop() }

        let page = try await OperationsListenerTests.get(listener.url + "/chat/desk")
        #expect(page.status == 200)
        #expect(page.header("content-type") == "text/html; charset=utf-8")
        #expect(page.header("content-security-policy") == "default-src 'self'; img-src 'self' https: data:; style-src 'self'; "
            + "script-src 'self'; connect-src 'self'; frame-ancestors 'self' https://shop.example")
        #expect(page.header("x-content-type-options") == "nosniff")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("data-bot=\"desk\""))
        #expect(html.contains("<script src=\"/chat/assets/widget.js\" defer></script>"))

        for (path, type) in [("/chat/assets/widget.js", "text/javascript; charset=utf-8"), ("/chat/assets/widget.css", "text/css; charset=utf-8"),
                             ("/chat/embed.js", "text/javascript; charset=utf-8")] {
            let asset = try await OperationsListenerTests.get(listener.url + path)
            #expect(asset.status == 200, "\(path)")
            #expect(asset.header("content-type") == type, "\(path)")
            #expect(asset.body.count > 500, "\(path)")
        }
        for path in ["/chat/nobot", "/chat/assets/console.js", "/chat/assets/nothing.js", "/chat/assets", "/chat/assets/"] {
            #expect(try await OperationsListenerTests.get(listener.url + path).status == 404, "\(path)")
        }
        #expect(try await OperationsListenerTests.get(listener.url + "/chat/desk", method: "POST").status == 405)
        await alice.close()
        await running.shutdown()
    }
}
