import Foundation
import Glibc
import ParleyBots
import ParleyHosting
import ParleyStore
import ParleyTesting
import Synchronization

/// The visitors' chat over real HTTP on loopback: 100 visitors, each POSTing a command and
/// waiting for its answer on their event stream before the next (a closed loop). Every round
/// trip is checked: the visitor's own message comes back, then the bot's answer with the
/// number sent, the event ids one apart — a lost, doubled or wrong event fails the run.
func benchWeb() async throws {
    // Durable first (what `parley run` keeps by default), then with every commit synced, then
    // the same with `storage.path: ":memory:"` in the same run: the differences are what
    // SQLite and the disk cost a round trip.
    try await benchWeb(storage: "state/parley.db", label: "SQLite")
    // `storage.durability: full`: every group commit syncs the log to the disk.
    StoreDurability.current = .full
    defer { StoreDurability.current = .normal }
    try await benchWeb(storage: "state/parley.db", label: "SQLite, durability full")
    StoreDurability.current = .normal
    try await benchWeb(storage: ":memory:", label: "in memory")
}

/// The rate of the fixed-rate latency line: under what this machine sustains with SQLite.
private let fixedRate = 600

private func benchWeb(storage: String, label: String) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-web-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
    try """
        storage: { path: "\(storage)" }
        log: { level: warn }
        http:
          listen: 127.0.0.1:0
          web_chat: { bots: [desk], rate: { session: 100000/s, address: 1000000/s } }
        """.write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
    try "name: Desk\ncommands:\n  order: { args: [number], reply: \"Order {{args.number}}\" }\n"
        .write(toFile: folder + "/bots/desk.yaml", atomically: true, encoding: .utf8)
    let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
    let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:], checkTests: false)
    guard loaded.errors.isEmpty else { throw BenchFailure("the bench config has errors: \(loaded.errors)") }
    let running = try await RunningHost.make(loaded, options: RunningHost.Options(resolve: resolve, logger: .silent))
    guard await running.start() == ["desk"] else { throw BenchFailure("the bot did not start") }
    guard let listener = try OperationsListener.start(running, http: loaded.config?.http),
          let port = URLComponents(string: listener.url)?.port else { throw BenchFailure("no listener") }
    defer { listener.stop() }
    let visitors = 100
    var load = WebChatLoad(port: port, visitors: visitors, duration: .seconds(5))
    _ = try load.run(warmUp: true)
    let commitsBefore = StoreStatistics.commits
    let filesBefore = StoreStatistics.commitsByFile
    let result = try load.run(warmUp: false)
    let commits = StoreStatistics.commits - commitsBefore
    let byFile = StoreStatistics.commitsByFile.map { (file: $0.key, commits: $0.value - (filesBefore[$0.key] ?? 0)) }
        .filter { $0.commits > 0 }.sorted { $0.file < $1.file }
    let throughput = Double(result.latencies.count) / result.seconds
    benchLine(String(format: "web chat (%@), %d visitors, POST a command → its answer on the event stream: %.0f round trips/s (%d, each checked)",
                     label, visitors, throughput, result.latencies.count))
    benchLine(String(format: "web chat (%@) SQLite commits per round trip, %d visitors in flight: %.2f (%d commits)",
                     label, visitors, Double(commits) / Double(max(1, result.latencies.count)), commits))
    if !byFile.isEmpty {
        benchLine("web chat (\(label)) SQLite commits per round trip by file: " + byFile.map {
            String(format: "%@ %.2f", $0.file, Double($0.commits) / Double(max(1, result.latencies.count)))
        }.joined(separator: ", "))
    }
    benchLine("web chat (\(label)) round trip latency, as fast as they can (closed loop): " + result.percentiles)
    // The same visitors at half that rate, each on a steady beat: the latency of a round trip
    // that does not queue behind the other 99 visitors' (at full speed every visitor waits
    // for the others by construction: 100 in flight at N/s is 100/N s each).
    load.pace = throughput / 2 / Double(visitors)
    let paced = try load.run(warmUp: false)
    benchLine(String(format: "web chat (%@) round trip latency at %.0f round trips/s (each visitor %.1f/s): ", label,
                     Double(paced.latencies.count) / paced.seconds, load.pace ?? 0) + paced.percentiles)
    // And at a fixed rate every build sustains, so two builds' latencies compare at one load.
    load.pace = Double(fixedRate) / Double(visitors)
    let fixed = try load.run(warmUp: false)
    benchLine(String(format: "web chat (%@) round trip latency at a fixed %d round trips/s (measured %.0f): ", label, fixedRate,
                     Double(fixed.latencies.count) / fixed.seconds) + fixed.percentiles)
    await running.shutdown()
}

/// The closed loop of `benchWeb`: one thread per visitor, with a keep-alive connection for its
/// POSTs and one for its event stream.
struct WebChatLoad {
    var port: Int
    var visitors: Int
    var duration: Duration

    /// Round trips per second per visitor, each on a steady beat; nil: as fast as they can.
    var pace: Double?

    struct Result {
        /// Each round trip's seconds.
        var latencies: [Double]
        var seconds: Double

        /// `p50 … ms, p99 … ms, max … ms`.
        var percentiles: String {
            let sorted = latencies.sorted()
            func at(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1_000 }
            return String(format: "p50 %.2f ms, p99 %.2f ms, max %.2f ms", at(0.5), at(0.99), (sorted.last ?? 0) * 1_000)
        }
    }

    /// Every visitor opens a session and runs its loop until the deadline (one second in a
    /// warm-up, which fills the caches and the threads' stacks and is not counted).
    func run(warmUp: Bool) throws -> Result {
        let latencies = Mutex<[Double]>([])
        let failure = Mutex<String?>(nil)
        let ready = DispatchGroup(), done = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        let seconds = warmUp ? 1 : duration.timeInterval
        let clock = Mutex<Date>(.distantFuture)
        for index in 0..<visitors {
            ready.enter()
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    let visitor = try WebChatVisitor(port: port)
                    ready.leave()
                    start.wait()
                    let mine = try visitor.loop(until: clock.withLock { $0 }, code: index, pace: pace)
                    latencies.withLock { $0 += mine }
                } catch {
                    failure.withLock { $0 = $0 ?? "visitor \(index): \(error)" }
                    ready.leave()
                }
            }.start()
        }
        // Bounded: every step reads with a 10 s timeout.
        guard ready.wait(timeout: .now() + 60) == .success else { throw BenchFailure("the visitors did not open their sessions") }
        if let failure = failure.withLock({ $0 }) { throw BenchFailure(failure) }
        let started = Date()
        clock.withLock { $0 = started.addingTimeInterval(seconds) }
        for _ in 0..<visitors { start.signal() }
        guard done.wait(timeout: .now() + seconds + 60) == .success else { throw BenchFailure("the load did not end") }
        if let failure = failure.withLock({ $0 }) { throw BenchFailure(failure) }
        return Result(latencies: latencies.withLock { $0 }, seconds: Date().timeIntervalSince(started))
    }
}

/// One visitor: a session, its event stream and its POST connection.
final class WebChatVisitor {
    let fd: Int32
    let events: EventStreamClient
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var pending: [UInt8] = []
    private let cookie: String
    /// The last event id seen.
    private var last: Int

    init(port: Int) throws {
        fd = try HTTPLoad.connectLoopback(port: port)
        pending = []
        let body = "{}"
        let request = "POST /chat/desk/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        guard send(fd, request, request.utf8.count, Int32(MSG_NOSIGNAL)) == request.utf8.count else { throw BenchFailure("send: errno \(errno)") }
        let (status, head, _) = try HTTPLoad.readAnswer(fd, &buffer, &pending)
        guard status == 200, let line = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("set-cookie: parley_chat=") }),
              let value = line.split(separator: "=", maxSplits: 1).last?.split(separator: ";").first else {
            throw BenchFailure("no session: \(status) \(head)")
        }
        cookie = String(value)
        events = try EventStreamClient(port: port, timeoutSeconds: 10)
        guard events.get("/chat/desk/events", headers: "Cookie: parley_chat=\(cookie)\r\n")?.hasPrefix("http/1.1 200") == true else {
            throw BenchFailure("the event stream did not open")
        }
        last = 0
    }

    deinit {
        close(fd)
        events.close()
    }

    /// Round trips until `deadline`; each one's seconds.
    func loop(until deadline: Date, code: Int, pace: Double?) throws -> [Double] {
        var latencies: [Double] = []
        var round = 0
        // Each visitor's beat starts at a point of its own, so the visitors do not send at once.
        let start = Date().addingTimeInterval(pace.map { Double(code % 100) / 100 / $0 } ?? 0)
        while Date() < deadline {
            if let pace {
                let due = start.addingTimeInterval(Double(round) / pace).timeIntervalSinceNow
                if due > 0 { usleep(useconds_t(due * 1_000_000)) }
            }
            round += 1
            let number = code * 1_000_000 + round
            let body = #"{"text":"/order \#(number)"}"#
            let request = "POST /chat/desk/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: parley_chat=\(cookie)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            let sent = Date()
            guard send(fd, request, request.utf8.count, Int32(MSG_NOSIGNAL)) == request.utf8.count else { throw BenchFailure("send: errno \(errno)") }
            let (status, _, answer) = try HTTPLoad.readAnswer(fd, &buffer, &pending)
            guard status == 202 else { throw BenchFailure("POST answered \(status): \(String(decoding: answer, as: UTF8.self))") }
            try expect(#""from":"visitor""#, #""text":"/order \#(number)""#)
            try expect(#""from":"bot""#, #""text":"Order \#(number)""#)
            latencies.append(Date().timeIntervalSince(sent))
        }
        return latencies
    }

    /// The next event must be the next id and hold both parts (compared as bytes: a
    /// Foundation string search per event would cost the load more than the server spends).
    private func expect(_ from: String, _ text: String) throws {
        // Bounded: the stream's reads time out after 10 s; the retry preamble has no id.
        for _ in 0..<3 {
            guard let block = events.nextEvent() else { throw BenchFailure("the event stream ended") }
            let bytes = Array(block.utf8)
            guard let idStart = EventStreamClient.find(Array("id: ".utf8), in: bytes)?.upperBound else { continue }
            let expectedID = Array("\(last + 1)\n".utf8)
            guard bytes.count >= idStart + expectedID.count, bytes[idStart..<(idStart + expectedID.count)].elementsEqual(expectedID) else {
                throw BenchFailure("event after \(last) is not \(last + 1): one lost or doubled: \(block)")
            }
            last += 1
            guard EventStreamClient.find(Array(from.utf8), in: bytes) != nil, EventStreamClient.find(Array(text.utf8), in: bytes) != nil else {
                throw BenchFailure("expected \(text) \(from), got \(block)")
            }
            return
        }
        throw BenchFailure("no event came for \(text)")
    }
}
