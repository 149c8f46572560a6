import Foundation
import ParleyHTTP
@testable import ParleyHTTPServer
import ParleyTesting
import Synchronization
import Testing

/// Every `HTTPServer` suite, one test at a time: one test measures the process's resident
/// memory and one the server's throughput, which tests running beside them would move.
@Suite(.serialized) struct HTTPServerSuites {}

extension HTTPServerSuites {
    /// `HTTPServer` answering well-behaved clients (libcurl, through `HTTPClient`): what reaches
    /// the handler, what comes back, keep-alive, concurrency, stopping and starting.
    @Suite struct HTTPServerTests {
        static func get(_ url: String, method: String = "GET", headers: [(name: String, value: String)] = [], body: Data? = nil) -> HTTPRequest {
            HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: .seconds(10), responseLimit: 1 << 20)
        }

        @Test func theRequestReachesTheHandlerAndTheAnswerComesBack() async throws {
            let seen = Locked<HTTPServerRequest?>(nil)
            let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
                seen.mutate { $0 = request }
                return HTTPServerResponse(status: 201, headers: [(name: "X-Answer", value: "yes"), (name: "Content-Type", value: "text/plain")],
                                          body: Data("made: \(request.body.count)".utf8))
            }
            defer { server.stop() }
            let request = Self.get("http://127.0.0.1:\(server.port)/items/a%20b?x=1&y=two%20words&flag", method: "PUT",
                                   headers: [(name: "X-Test", value: "Value"), (name: "X-Multi", value: "a"), (name: "X-Multi", value: "b")],
                                   body: Data(#"{"k":1}"#.utf8))
            let answer = try await withTimeout { try await HTTPClient().send(request) }
            #expect(answer.status == 201)
            #expect(answer.header("x-answer") == "yes")
            #expect(answer.header("content-type") == "text/plain")
            #expect(String(decoding: answer.body, as: UTF8.self) == "made: 7")
            let got = try #require(seen.value)
            #expect(got.method == "PUT")
            #expect(got.path == "/items/a b")
            #expect(got.query == ["x": "1", "y": "two words", "flag": ""])
            #expect(got.header("X-TEST") == "Value")
            #expect(got.headers["x-test"] == "Value")
            #expect(got.header("x-multi") == "a, b")
            #expect(got.header("host") == "127.0.0.1:\(server.port)")
            #expect(String(decoding: got.body, as: UTF8.self) == #"{"k":1}"#)
            #expect(got.remoteAddress == "127.0.0.1")
        }

        /// What `immediate` answers never reaches the handler; what it passes on does.
        @Test func anImmediateAnswerIsSentWithoutTheHandler() async throws {
            let handled = Mutex<[String]>([])
            let server = try HTTPServer(host: "127.0.0.1", port: 0, immediate: { $0.path == "/now" ? .text(200, "at once") : nil }) { request in
                handled.withLock { $0.append(request.path) }
                return .text(200, "from the handler")
            }
            defer { server.stop() }
            let client = HTTPClient()
            for (path, text) in [("/now", "at once"), ("/later", "from the handler"), ("/now", "at once")] {
                let answer = try await withTimeout { try await client.send(Self.get("http://127.0.0.1:\(server.port)\(path)")) }
                #expect(String(decoding: answer.body, as: UTF8.self) == text)
            }
            #expect(handled.withLock { $0 } == ["/later"])
        }

        @Test func theConvenienceAnswersSetTheirContentType() async throws {
            let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
                request.path == "/json" ? .json(200, Data(#"{"a":1}"#.utf8)) : .text(404, "no such page")
            }
            defer { server.stop() }
            let client = HTTPClient()
            let json = try await withTimeout { try await client.send(Self.get("http://127.0.0.1:\(server.port)/json")) }
            #expect(json.header("content-type") == "application/json")
            #expect(String(decoding: json.body, as: UTF8.self) == #"{"a":1}"#)
            let text = try await withTimeout { try await client.send(Self.get("http://127.0.0.1:\(server.port)/other")) }
            #expect(text.status == 404)
            #expect(text.header("content-type") == "text/plain; charset=utf-8")
            #expect(String(decoding: text.body, as: UTF8.self) == "no such page")
        }

        @Test func aHundredRequestsGoOverOneKeptAliveConnection() async throws {
            let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in .text(200, request.query["n"] ?? "") }
            defer { server.stop() }
            let client = HTTPClient(maxConnectionsPerHost: 1)
            for n in 0..<100 {
                let answer = try await withTimeout { try await client.send(Self.get("http://127.0.0.1:\(server.port)/?n=\(n)")) }
                #expect(answer.status == 200)
                #expect(String(decoding: answer.body, as: UTF8.self) == "\(n)")
                #expect(answer.reusedConnection == (n > 0))
            }
        }

        @Test func twoHundredConcurrentRequestsGetTheirOwnAnswers() async throws {
            let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
                // Long enough that the requests overlap in the server.
                try? await Task.sleep(for: .milliseconds(20))
                return .text(200, "answer to \(request.path)")
            }
            defer { server.stop() }
            let client = HTTPClient(maxConnectionsPerHost: 200)
            let url = "http://127.0.0.1:\(server.port)"
            let answers = try await withTimeout(seconds: 60) {
                try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for n in 0..<200 {
                        group.addTask { (n, String(decoding: try await client.send(Self.get("\(url)/\(n)")).body, as: UTF8.self)) }
                    }
                    return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
                }
            }
            #expect(answers.count == 200)
            for n in 0..<200 { #expect(answers[n] == "answer to /\(n)") }
        }

        @Test func stopClosesConnectionsAndFreesThePort() async throws {
            let server = try HTTPServer(host: "127.0.0.1", port: 0) { _ in .text(200, "first") }
            let port = server.port
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            let first = await offPool {
                connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                return connection.readAnswer()
            }
            #expect(first?.body == "first")
            #expect(server.openConnections == 1)
            await offPool { server.stop() }
            #expect(server.openConnections == 0)
            #expect(await offPool { connection.readToEnd().closed })
            server.stop()  // a second time: nothing happens

            let again = try HTTPServer(host: "127.0.0.1", port: port) { _ in .text(200, "second") }
            defer { again.stop() }
            #expect(again.port == port)
            let answer = try await withTimeout { try await HTTPClient().send(Self.get("http://127.0.0.1:\(port)/")) }
            #expect(String(decoding: answer.body, as: UTF8.self) == "second")
        }

        @Test func stopAbandonsAHandlerStillRunning() async throws {
            let waiting = Locked<[CheckedContinuation<Void, Never>]>([])
            let server = try HTTPServer(host: "127.0.0.1", port: 0) { _ in
                await withCheckedContinuation { continuation in waiting.mutate { $0.append(continuation) } }
                return .text(200, "too late")
            }
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            #expect(connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
            try await pollUntil("the handler has started") { !waiting.value.isEmpty }
            await offPool { server.stop() }
            let after = await offPool { connection.readToEnd() }
            #expect(after.closed)
            #expect(after.bytes.isEmpty)
            // The handler answers after all: dropped, nothing breaks.
            for continuation in waiting.mutate({ list in defer { list = [] }; return list }) { continuation.resume() }
            try await pollUntil("the request's state is freed") { server.liveRequestStates == 0 }
        }

        @Test func aPortInUseIsAnErrorNamingTheAddress() throws {
            let first = try HTTPServer(host: "127.0.0.1", port: 0) { _ in .text(200, "") }
            defer { first.stop() }
            let error = #expect(throws: HTTPServerError.self) {
                _ = try HTTPServer(host: "127.0.0.1", port: first.port) { _ in .text(200, "") }
            }
            #expect(error?.description == "cannot listen on 127.0.0.1:\(first.port): Address already in use")
            let named = #expect(throws: HTTPServerError.self) { _ = try HTTPServer(host: "localhost", port: 0) { _ in .text(200, "") } }
            #expect(named?.description.hasPrefix("cannot listen on localhost:0") == true)
        }
    }

}

/// Polls `condition` every 10 ms until it holds, for at most `seconds`.
func pollUntil(_ what: String, seconds: Double = 10, _ condition: @escaping @Sendable () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw TimeoutError(what: what, seconds: seconds) }
        try await Task.sleep(for: .milliseconds(10))
    }
}
