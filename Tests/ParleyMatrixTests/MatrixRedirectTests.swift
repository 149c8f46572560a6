import Foundation
import ParleyCore
import Testing
import ParleyTesting
@testable import ParleyMatrix

/// Redirects and the bearer token: the token goes to the homeserver's origin only.
@Suite struct MatrixRedirectTests {
    static let token = "syt_c2VjcmV0_redirect_test"
    static let whoami = #"{"user_id":"@bot:localhost","device_id":"DEV"}"#

    @Test func aRedirectToAnotherOriginIsRefusedAndTheTokenStaysHome() async throws {
        // Same host, another port: another origin, as a hostile redirect would be.
        let elsewhere = try LoopbackHTTPServer { _ in .init(status: 200, body: Self.whoami) }
        defer { elsewhere.stop() }
        let target = "http://127.0.0.1:\(elsewhere.port)/_matrix/client/v3/account/whoami"
        let homeserver = try LoopbackHTTPServer { _ in .init(status: 302, headers: ["Location": target]) }
        defer { homeserver.stop() }
        let client = MatrixClient(homeserver: homeserver.url, accessToken: Self.token, requestTimeout: .seconds(5))

        let error = try await #require(throws: ParleyError.self) {
            try await withTimeout("whoami", seconds: 15) { try await client.whoami() }
        }
        #expect(error.code == .permissionDenied)
        #expect(error.message == "the homeserver redirected to another origin (\(target)): not followed, so the access token and password stay with \(homeserver.url.absoluteString)")
        #expect(homeserver.requests.map { $0.headers["authorization"] } == ["Bearer \(Self.token)"])
        #expect(elsewhere.requests.isEmpty)
    }

    @Test func aRedirectWithinTheOriginIsFollowed() async throws {
        let homeserver = try LoopbackHTTPServer { request in
            request.path.hasPrefix("/moved")
                ? .init(status: 200, body: Self.whoami)
                : .init(status: 307, headers: ["Location": "/moved/whoami"])
        }
        defer { homeserver.stop() }
        let client = MatrixClient(homeserver: homeserver.url, accessToken: Self.token, requestTimeout: .seconds(5))

        let who = try await withTimeout("whoami", seconds: 15) { try await client.whoami() }
        #expect(who.userID == "@bot:localhost")
        #expect(homeserver.requests.map(\.path) == ["/_matrix/client/v3/account/whoami", "/moved/whoami"])
    }

    @Test(arguments: [
        ("http://h:80/a", "http://H/b", true),
        ("https://h/a", "https://h:443/b", true),
        ("https://h/a", "http://h/b", false),
        ("http://h:8008/a", "http://h:8009/a", false),
        ("http://h/a", "http://evil/a", false),
    ])
    func originsCompareSchemeHostAndPort(from: String, to: String, same: Bool) {
        let a = SameOriginRedirects.origin(URL(string: from)!), b = SameOriginRedirects.origin(URL(string: to)!)
        #expect((a == b) == same)
    }
}
