import Foundation
import ParleyHosting

/// The operations listener with 100 bots loaded on the embedded hub: `/healthz` and
/// `/metrics` requests per second over keep-alive connections, every answer checked, and
/// Python's standard-library server answering the same `/healthz` body as the yardstick, in
/// the same run.
func benchHTTP() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-http-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
    try "storage: { path: \":memory:\" }\nhttp: { listen: 127.0.0.1:0 }\nlog: { level: warn }\n"
        .write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
    for index in 1...100 {
        try "name: Bot \(index)\ncommands:\n  ping: { reply: pong }\n  order: { args: [number], reply: \"Order {{args.number}}\" }\n"
            .write(toFile: folder + String(format: "/bots/bot%03d.yaml", index), atomically: true, encoding: .utf8)
    }
    let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
    let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:], checkTests: false)
    guard loaded.errors.isEmpty else { throw BenchFailure("the bench config has errors: \(loaded.errors)") }
    var options = RunningHost.Options(resolve: resolve, logger: .silent, extraUsers: ["alice"])
    options.reloadSource = { HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:]) }
    let running = try await RunningHost.make(loaded, options: options)
    guard await running.start().count == 100 else { throw BenchFailure("not every bot started") }
    guard let listener = try OperationsListener.start(running, http: loaded.config?.http),
          let port = URLComponents(string: listener.url)?.port else { throw BenchFailure("no listener") }
    defer { listener.stop() }
    let healthBody = String(decoding: running.health().json, as: UTF8.self)
    // Every bot connected, so every answer is this one, byte for byte.
    guard healthBody.contains(#""status":"ok""#), healthBody.contains(#""bot100""#) else { throw BenchFailure("the host is not healthy: \(healthBody)") }
    let expected = Array(healthBody.utf8)
    let connections = 4
    let healthz = try HTTPLoad(port: port, path: "/healthz", connections: connections, duration: .seconds(5)) { $0.elementsEqual(expected) }.run()
    benchLine(String(format: "http /healthz, 100 bots, %d keep-alive connections: %.0f requests/s (%d answers, each checked)",
                     connections, healthz.perSecond, healthz.requests))
    let metrics = try HTTPLoad(port: port, path: "/metrics", connections: connections, duration: .seconds(3)) {
        HTTPLoad.contains($0, "\nparley_build_info{") && HTTPLoad.contains($0, "\nparley_outbox_depth{bot=\"bot100\"} 0\n")
    }.run()
    benchLine(String(format: "http /metrics, 100 bots, %d keep-alive connections: %.0f requests/s (%d answers, each checked)",
                     connections, metrics.perSecond, metrics.requests))

    try await benchReload(running, folder: folder)

    // The yardstick: the same body from Python's ThreadingHTTPServer (HTTP/1.1, keep-alive).
    let baseline = Process()
    baseline.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    baseline.arguments = ["scripts/http-baseline.py", healthBody]
    let out = Pipe()
    baseline.standardOutput = out
    guard FileManager.default.fileExists(atPath: "scripts/http-baseline.py") else {
        return benchLine("http yardstick: skipped (run from the repository root: scripts/http-baseline.py not found)")
    }
    try baseline.run()
    defer {
        kill(baseline.processIdentifier, SIGKILL)
        baseline.waitUntilExit()
    }
    // "port N\n": the first line; bounded by the pipe closing (empty data) if the script dies.
    var first = ""
    while !first.contains("\n") {
        let data = out.fileHandleForReading.availableData
        if data.isEmpty { break }
        first += String(decoding: data, as: UTF8.self)
    }
    guard let basePort = first.split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
        throw BenchFailure("the yardstick said '\(first)'")
    }
    let python = try HTTPLoad(port: basePort, path: "/healthz", connections: connections, duration: .seconds(5)) { $0.elementsEqual(expected) }.run()
    benchLine(String(format: "http yardstick, python3 ThreadingHTTPServer, same /healthz body: %.0f requests/s; parley %.1f× it",
                     python.perSecond, healthz.perSecond / python.perSecond))
    await running.shutdown()
}
