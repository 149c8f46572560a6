import Foundation
import Glibc
@testable import ParleyHTTPServer
import ParleyTesting
import Testing

extension HTTPServerSuites {
    /// Streamed answers (`HTTPServerStream`, Server-Sent Events), read over raw sockets
    /// (`EventStreamClient`): events arrive as written, the stream's ends (finished, client
    /// gone, buffer over its limit, server stopped), timeouts, and many streams at once.
    @Suite struct HTTPServerStreamTests {
        /// Answers `/plain` with text, `/short` with a stream written and finished before it is
        /// returned, and any other path with an event stream, which it keeps by path for the
        /// test to write to.
        final class StreamingServer: Sendable {
            let server: HTTPServer
            let streams = Locked<[String: HTTPServerStream]>([:])
            let lastEventIDs = Locked<[String: String]>([:])

            init(options: HTTPServerOptions = .init(), limit: Int = 256 << 10) throws {
                let streams = streams, lastEventIDs = lastEventIDs
                server = try HTTPServer(host: "127.0.0.1", port: 0, options: options) { request in
                    if request.path == "/plain" { return .text(200, "plain") }
                    let stream = HTTPServerStream(limit: limit)
                    if request.path == "/short" {
                        stream.write("data: one\n\n")
                        stream.write("data: two\n\n")
                        stream.finish()
                        return .eventStream(stream)
                    }
                    lastEventIDs.mutate { $0[request.path] = request.header("Last-Event-ID") }
                    streams.mutate { $0[request.path] = stream }
                    return .eventStream(stream)
                }
            }

            var port: Int { server.port }

            /// The stream answering `path`, once its request has come.
            func stream(_ path: String) async throws -> HTTPServerStream {
                try await pollUntil("the request for \(path) reaches the handler") { self.streams.value[path] != nil }
                return try #require(streams.value[path])
            }
        }

        /// A client of `server` that has asked for `path` and got the answer's head.
        static func open(_ path: String, on server: StreamingServer, headers: String = "") async throws -> (EventStreamClient, String) {
            let client = try EventStreamClient(port: server.port)
            let head = await offPool { client.get(path, headers: headers) }
            return (client, try #require(head))
        }

        @Test func eventsWrittenOverTimeArriveInOrderAndFinishEndsTheAnswer() async throws {
            let server = try StreamingServer()
            defer { server.server.stop() }
            let (client, head) = try await Self.open("/chat", on: server, headers: "Last-Event-ID: 41\r\n")
            defer { client.close() }
            #expect(head.hasPrefix("http/1.1 200"))
            #expect(head.contains("content-type: text/event-stream"))
            #expect(head.contains("cache-control: no-cache"))
            #expect(head.contains("transfer-encoding: chunked"))
            #expect(server.lastEventIDs.value["/chat"] == "41")
            let stream = try await server.stream("/chat")
            // Each event is written only once the one before has arrived: none waits for the next.
            for n in 42..<47 {
                #expect(stream.send(ServerSentEvent(id: "\(n)", data: "message \(n)")))
                #expect(await offPool { client.nextEvent() } == "id: \(n)\ndata: message \(n)")
            }
            #expect(stream.end == nil)
            stream.write("data: the last\n\n")
            stream.finish()
            #expect(!stream.write("data: too late\n\n"))
            #expect(stream.end == .finished)
            #expect(await offPool { client.nextEvent() } == "data: the last")
            await offPool { client.readToEnd() }
            #expect(client.finished)
            #expect(!client.closed)
            // The answer ended properly: the connection serves the next request.
            let next = await offPool { client.connection.send("GET /plain HTTP/1.1\r\nHost: x\r\n\r\n") ? client.connection.readAnswer() : nil }
            #expect(next?.body == "plain")
            try await pollUntil("the stream's request state is freed") { server.server.liveRequestStates == 0 }
        }

        @Test func aStreamFinishedBeforeTheHandlerReturnsIsSentWhole() async throws {
            let server = try StreamingServer()
            defer { server.server.stop() }
            let (client, head) = try await Self.open("/short", on: server)
            defer { client.close() }
            #expect(head.hasPrefix("http/1.1 200"))
            let events = await offPool { () -> [String?] in
                defer { client.readToEnd() }
                return [client.nextEvent(), client.nextEvent()]
            }
            #expect(events == ["data: one", "data: two"])
            #expect(client.finished)
        }

        @Test func aClientThatGoesAwayIsNoticedByTheProducer() async throws {
            let server = try StreamingServer()
            defer { server.server.stop() }
            let (client, _) = try await Self.open("/gone", on: server)
            let stream = try await server.stream("/gone")
            let ended = Locked<HTTPServerStream.End?>(nil)
            stream.onClose { end in ended.mutate { $0 = end } }
            stream.write("data: hello\n\n")
            #expect(await offPool { client.nextEvent() } == "data: hello")
            client.close()
            // The owner's keep-alive comments: while the stream has nothing to send its connection
            // is suspended and libmicrohttpd does not watch it; a write finds the client gone.
            let producer = Task {
                while !stream.isClosed, !Task.isCancelled {
                    stream.keepAlive()
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            defer { producer.cancel() }
            try await pollUntil("the producer learns the client is gone") { ended.value != nil }
            #expect(ended.value == .disconnected)
            #expect(stream.end == .disconnected)
            #expect(!stream.write("data: nobody\n\n"))
            try await pollUntil("the connection is closed and its state freed") {
                server.server.liveRequestStates == 0 && server.server.openConnections == 0
            }
        }

        @Test func stopEndsOpenStreamsPromptly() async throws {
            let server = try StreamingServer()
            let paths = ["/idle-1", "/idle-2", "/talking"]
            let clients = try await paths.asyncMap { try await Self.open($0, on: server).0 }
            defer { for client in clients { client.close() } }
            let streams = try await withTimeout { try await paths.asyncMap { try await server.stream($0) } }
            let ends = Locked<[HTTPServerStream.End]>([])
            for stream in streams { stream.onClose { end in ends.mutate { $0.append(end) } } }
            streams[2].write("data: one\n\n")
            #expect(await offPool { clients[2].nextEvent() } == "data: one")

            let started = ContinuousClock.now
            await offPool { server.server.stop() }
            let took = ContinuousClock.now - started
            #expect(took < .seconds(2), "stop() took \(took)")
            #expect(ends.value == [.serverStopped, .serverStopped, .serverStopped])
            for stream in streams { #expect(!stream.write("data: after\n\n")) }
            for client in clients {
                await offPool { client.readToEnd() }
                // Cut off: no last chunk.
                #expect(client.closed)
                #expect(!client.finished)
            }
            #expect(server.server.openConnections == 0)
        }

        /// `stop()` while producers write to every stream, their connections going in and out
        /// of suspension: no connection may be left suspended when the daemon stops (libmicrohttpd
        /// would abort the process), and every stream ends.
        @Test func stopWhileProducersWriteEndsEveryStream() async throws {
            for _ in 0..<10 {
                let server = try StreamingServer()
                let clients = try (0..<20).map { _ in try EventStreamClient(port: server.port) }
                defer { for client in clients { client.close() } }
                _ = await offPool { clients.enumerated().map { $1.get("/p\($0)") } }
                try await pollUntil("every request reaches the handler") { server.streams.value.count == clients.count }
                let streams = Array(server.streams.value.values)
                let producers = streams.map { stream in
                    Task.detached {
                        // Bounded by the stream's end (stop()); yields so that the connection
                        // empties and suspends now and then.
                        while stream.write("data: tick\n\n") { await Task.yield() }
                    }
                }
                // Flowing on every stream; readers then keep the connections draining.
                #expect(await offPool { clients.allSatisfy { $0.nextEvent() == "data: tick" } })
                let readers = clients.map { client in Task.detached { await offPool { client.readToEnd() } } }
                await offPool { server.server.stop() }
                for producer in producers { await producer.value }
                for reader in readers { await reader.value }
                #expect(streams.allSatisfy { $0.end == .serverStopped })
                #expect(server.server.openConnections == 0)
            }
        }

        /// An HTTP/1.0 client cannot take a chunked body: it gets the stream until the
        /// connection closes.
        @Test func anHTTP10ClientGetsTheStreamUntilTheConnectionCloses() async throws {
            let server = try StreamingServer()
            defer { server.server.stop() }
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            #expect(connection.send("GET /old HTTP/1.0\r\n\r\n"))
            let stream = try await server.stream("/old")
            stream.write("data: one\n\n")
            stream.finish()
            let answer = await offPool { connection.readToEnd() }
            let text = String(decoding: answer.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.0 200") || text.hasPrefix("HTTP/1.1 200"), "answered \(text.prefix(40))")
            #expect(text.hasSuffix("\r\n\r\ndata: one\n\n"))
            #expect(answer.closed)
            try await pollUntil("the connection is cleaned up") { server.server.openConnections == 0 }
        }

        /// The idle timeout counts a stream's connection only while it sends, and the handler's
        /// time ends when it returns the answer: a quiet stream outlives both. (Its CPU cost
        /// while quiet is measured alone: `QuietStreamCPURunAloneTests`.)
        @Test func aQuietStreamOutlivesTheIdleAndHandlerTimeouts() async throws {
            _ = try await Self.quietStream()
        }

        /// A stream silent for two and a half idle timeouts (1 s; the handler's, 200 ms) after
        /// its first event, read to its second: the process's CPU seconds over the silence.
        static func quietStream() async throws -> Double {
            var options = HTTPServerOptions()
            options.idleTimeout = .seconds(1)
            options.handlerTimeout = .milliseconds(200)
            let server = try StreamingServer(options: options)
            defer { server.server.stop() }
            let (client, _) = try await Self.open("/quiet", on: server)
            defer { client.close() }
            let stream = try await server.stream("/quiet")
            stream.write("data: first\n\n")
            #expect(await offPool { client.nextEvent() } == "data: first")
            let cpuBefore = processCPUSeconds()
            let producer = Task {
                try await Task.sleep(for: .milliseconds(2_500))
                return stream.write("data: second\n\n")
            }
            #expect(await offPool { client.nextEvent() } == "data: second")
            #expect(try await producer.value)
            #expect(stream.end == nil)
            return processCPUSeconds() - cpuBefore
        }

        @Test func twoHundredStreamsAtOnceEachGetTheirEvents() async throws {
            let server = try StreamingServer()
            defer { server.server.stop() }
            let count = 200
            let clients = try (0..<count).map { _ in try EventStreamClient(port: server.port) }
            defer { for client in clients { client.close() } }
            let heads = await offPool { clients.enumerated().map { $1.get("/s\($0)") } }
            #expect(heads.allSatisfy { $0?.hasPrefix("http/1.1 200") == true })
            try await pollUntil("every request reaches the handler") { server.streams.value.count == count }
            let streams = server.streams.value
            #expect(server.server.openConnections == count)
            // Round by round, across every stream, then each client reads its own.
            for round in 0..<3 {
                for n in 0..<count { #expect(streams["/s\(n)"]?.write("id: \(round)\ndata: for /s\(n)\n\n") == true) }
            }
            for stream in streams.values { stream.finish() }
            let wrong = await offPool {
                clients.enumerated().filter { n, client in
                    let events = (0..<3).map { _ in client.nextEvent() }
                    client.readToEnd()
                    return events != (0..<3).map { "id: \($0)\ndata: for /s\(n)" } || !client.finished
                }.map(\.offset)
            }
            #expect(wrong.isEmpty, "streams with wrong events: \(wrong)")
        }

        /// A client that does not read: the stream takes writes until `limit` bytes wait (after
        /// what the socket buffers and libmicrohttpd's hold), then ends and closes the connection.
        @Test func aClientThatDoesNotReadOverflowsTheStreamAndIsClosed() async throws {
            let server = try StreamingServer(limit: 64 << 10)
            defer { server.server.stop() }
            let (client, _) = try await Self.open("/slow", on: server)
            defer { client.close() }
            let stream = try await server.stream("/slow")
            let event = "data: " + String(repeating: "x", count: 16_000) + "\n\n"
            let before = residentKilobytes()
            let written = await offPool {
                var written = 0
                // Bounded: 1 GiB if the stream never ended.
                while written < 1 << 30, stream.write(event) { written += event.utf8.count }
                return written
            }
            let grown = residentKilobytes() - before
            #expect(stream.end == .overflowed)
            // Socket buffers on loopback take a few MiB.
            #expect(written < 64 << 20, "took \(written) bytes")
            #expect(grown < 32 * 1024, "resident memory grew by \(grown) KiB")
            await offPool { client.readToEnd() }
            #expect(client.closed)
            #expect(!client.finished)
            try await pollUntil("the connection is closed and its state freed") {
                server.server.liveRequestStates == 0 && server.server.openConnections == 0
            }
        }
    }
}

extension Array {
    /// `transform` of each element, in order, one at a time.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}

/// CPU time this process has used (user and system), in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
