import Foundation
import ParleyCore
import Testing
import ParleyTesting
@testable import ParleyMatrix

/// Answer bodies are capped: a homeserver cannot make the client hold an answer of any size.
@Suite struct MatrixResponseLimitTests {
    static let limit = 65_536
    static let chunk = String(repeating: "x", count: 4_096)
    static let whoamiPath = "/_matrix/client/v3/account/whoami"

    static func client(_ server: LoopbackHTTPServer) -> MatrixClient {
        var client = MatrixClient(homeserver: server.url, accessToken: "t", requestTimeout: .seconds(5))
        client.responseLimit = limit
        client.syncResponseLimit = 4 * limit
        return client
    }

    static func refusal(_ path: String, limit: Int = limit) -> String {
        "the homeserver's answer to GET \(path) is larger than \(limit) bytes: refused without reading the rest"
    }

    /// The error of a whoami the server answers with `answer`.
    static func whoamiError(_ answer: LoopbackHTTPServer.Answer) async throws -> ParleyError {
        let server = try LoopbackHTTPServer { _ in answer }
        defer { server.stop() }
        let client = Self.client(server)
        return try await #require(throws: ParleyError.self) {
            try await withTimeout("whoami", seconds: 15) { try await client.whoami() }
        }
    }

    @Test func aContentLengthOverTheLimitIsRefusedBeforeTheBodyIsRead() async throws {
        // It announces 1 GiB but sends 4 KiB and hangs up: only a check of the header itself
        // sees a body too large (reading would end in a truncated answer instead).
        let error = try await Self.whoamiError(
            .init(status: 200, headers: ["Content-Length": "1073741824"], body: Self.chunk, sendsLength: false))
        #expect(error.code == .messageTooLarge)
        #expect(error.message == Self.refusal(Self.whoamiPath))
        #expect(error.context == ["path": Self.whoamiPath, "limit": String(Self.limit)])
    }

    @Test func aBodyWithoutContentLengthIsCutOffAtTheLimit() async throws {
        // 64 MiB, a thousand times the limit: without counting, the client would hold it all
        // (and then find it is no JSON).
        let error = try await Self.whoamiError(.init(status: 200, body: Self.chunk, repeats: 16_384, sendsLength: false))
        #expect(error.code == .messageTooLarge)
        #expect(error.message == Self.refusal(Self.whoamiPath))
    }

    @Test func syncHasItsOwnLargerLimit() async throws {
        // Twice the general limit: too large for whoami, fine for /sync.
        let body = #"{"next_batch":"s1","user_id":"@bot:localhost","pad":""# + String(repeating: "x", count: 2 * Self.limit) + #""}"#
        let server = try LoopbackHTTPServer { _ in .init(status: 200, body: body, sendsLength: false) }
        defer { server.stop() }
        let client = Self.client(server)

        let answer = try await withTimeout("sync", seconds: 15) {
            try await client.sync(filterID: nil, since: nil, timeout: .zero)
        }
        #expect(answer["next_batch"]?.stringValue == "s1")
        let error = try await #require(throws: ParleyError.self) {
            try await withTimeout("whoami", seconds: 15) { try await client.whoami() }
        }
        #expect(error.code == .messageTooLarge)
        let tooLarge = try await #require(throws: ParleyError.self) {
            try await withTimeout("sync", seconds: 15) { [client] in
                var small = client
                small.syncResponseLimit = Self.limit
                return try await small.sync(filterID: nil, since: nil, timeout: .zero)
            }
        }
        #expect(tooLarge.message == Self.refusal("/_matrix/client/v3/sync", limit: Self.limit))
    }
}
