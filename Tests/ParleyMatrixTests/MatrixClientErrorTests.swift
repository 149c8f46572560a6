import Foundation
import ParleyCore
import Testing
@testable import ParleyMatrix

/// Error mapping of homeserver answers (no server needed).
@Suite struct MatrixClientErrorTests {
    @Test(arguments: [
        (429, #"{"errcode":"M_LIMIT_EXCEEDED","error":"Too Many Requests","retry_after_ms":4607}"#, "5", ParleyError.Code.rateLimited, Duration?.some(.seconds(5))),
        (429, #"{"errcode":"M_LIMIT_EXCEEDED","error":"Too Many Requests","retry_after_ms":1500}"#, nil, .rateLimited, .some(.milliseconds(1500))),
        (401, #"{"errcode":"M_UNKNOWN_TOKEN","error":"Invalid access token"}"#, nil, .unauthorized, nil),
        (403, #"{"errcode":"M_FORBIDDEN","error":"not in room"}"#, nil, .permissionDenied, nil),
        (404, #"{"errcode":"M_NOT_FOUND","error":"no such room"}"#, nil, .notFound, nil),
        (400, #"{"errcode":"M_NOT_FOUND","error":"odd but seen"}"#, nil, .notFound, nil),
        (413, #"{"errcode":"M_TOO_LARGE","error":"event too large"}"#, nil, .messageTooLarge, nil),
        (502, "", nil, .serverError, nil),
        (400, #"{"errcode":"M_BAD_JSON","error":"bad"}"#, nil, .invalidArgument, nil),
    ] as [(Int, String, String?, ParleyError.Code, Duration?)])
    func mapsStatusAndErrcode(status: Int, body: String, header: String?, code: ParleyError.Code, retryAfter: Duration?) {
        let json = body.isEmpty ? nil : try? JSONValue.parse(Data(body.utf8))
        let error = MatrixClient.error(status: status, body: json, retryAfterHeader: header, path: "/_matrix/client/v3/x")
        #expect(error.code == code)
        #expect(error.retryAfter == retryAfter)
        #expect(error.context["status"] == String(status))
    }

    @Test func rateLimitMessageNamesErrcodeAndWait() {
        let error = MatrixClient.error(
            status: 429, body: ["errcode": "M_LIMIT_EXCEEDED", "error": "Too Many Requests"], retryAfterHeader: "2",
            path: "/p")
        #expect(error.description == "rateLimited: M_LIMIT_EXCEEDED: Too Many Requests (retry after 2.0 seconds) [errcode=M_LIMIT_EXCEEDED, path=/p, status=429]")
    }

    @Test func theErrcodeIsTyped() {
        let duplicate = MatrixClient.error(status: 400, body: ["errcode": "M_DUPLICATE_ANNOTATION", "error": "dup"],
                                           retryAfterHeader: nil, path: "/p")
        #expect(duplicate.matrixErrcode == .duplicateAnnotation)
        #expect(MatrixClient.error(status: 502, body: nil, retryAfterHeader: nil, path: "/p").matrixErrcode == nil)
    }

    @Test func pathComponentsArePercentEncoded() {
        #expect(MatrixClient.clientPath("rooms", "!abc:localhost", "event", "$e/v+t") ==
            "/_matrix/client/v3/rooms/%21abc%3Alocalhost/event/%24e%2Fv%2Bt")
        #expect(MatrixClient.clientPath("directory", "room", "#help desk:hs") == "/_matrix/client/v3/directory/room/%23help%20desk%3Ahs")
    }

    @Test func unreachableServerIsNetworkUnavailable() async throws {
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        let client = MatrixClient(homeserver: try #require(URL(string: "http://127.0.0.1:1")), requestTimeout: .seconds(5))
        await #expect {
            try await client.whoami()
        } throws: { error in
            (error as? ParleyError)?.code == .networkUnavailable
        }
    }
}
