import Foundation
import ParleyBots
import ParleyCore
import ParleyHub

/// `parley-bench broadcast [recipients]`: one broadcast without a rate limit to
/// `recipients` users (default 100,000) on the embedded hub, hub and broadcast store in
/// one SQLite file, as a host runs them. Prints recipients/s (create, send and record,
/// end to end), the send phase alone, the same to an audience of as many members of whom a
/// tenth opted out (see `AudienceBench`), and the process's peak resident memory (VmHWM).
func benchBroadcast() async throws {
    let arguments = CommandLine.arguments
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
    let folder = NSTemporaryDirectory() + "parley-bench-broadcast-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let database = folder + "/parley.db"

    let hub = try Hub(path: database)
    try hub.addUser(Profile(id: "news", name: "News"))
    for index in 0..<count { try hub.addUser(Profile(id: "u\(index)")) }
    let transport = try hub.connect(user: "news")
    let store = try BroadcastStore(path: database)
    let service = BroadcastService(store: store)
    var recipients = BroadcastRecipients()
    for index in 0..<count { recipients.append(.person("u\(index)")) }

    let cpuBefore = cpuSeconds()
    let start = ContinuousClock.now
    let job = try service.create(bot: "news", origin: "bench", message: try BroadcastMessage(text: "Hello {{recipient.id}}"),
                                 recipients: recipients).job
    let created = ContinuousClock.now
    let report = try await service.run(job.id, transport: transport)
    let end = ContinuousClock.now
    let cpu = cpuSeconds() - cpuBefore
    guard report.sent == count else {
        print("broadcast: FAILED: \(report)")
        return
    }
    let total = (end - start).timeInterval, sending = (end - created).timeInterval
    print("broadcast.recipients_per_second \(Int(Double(count) / total)) (\(count) recipients, SQLite hub + store, no rate limit, \(String(format: "%.2f", total)) s)")
    print("broadcast.send_phase_recipients_per_second \(Int(Double(count) / sending))")
    // On a shared machine the wall clock mostly measures the neighbours: CPU time says what it costs.
    print("broadcast.recipients_per_cpu_second \(Int(Double(count) / cpu)) (user+sys \(String(format: "%.2f", cpu)) s)")
    let audience = AudienceBench(hub: hub, transport: transport, service: service, count: count)
    try await audience.run()
    try hub.close()
    print("broadcast.peak_memory_mb \(peakMemoryMegabytes().map(String.init) ?? "unknown") (VmHWM)")
}

/// VmHWM from /proc/self/status, in MB.
private func peakMemoryMegabytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kilobytes / 1024
}

/// User plus system CPU time of this process so far, in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
