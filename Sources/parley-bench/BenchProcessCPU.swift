import Foundation

/// A process's CPU time from `/proc/<pid>/stat`: CPU per answer does not depend on what else
/// the shared machine runs, unlike answers per second.
struct ProcessCPU {
    let pid: String?

    /// This process (the bench hosts Parley's bot in-process, otherwise idle while it waits).
    static let current = ProcessCPU(pid: String(getpid()))
    /// The Synapse of `scripts/synapse start`, by `PARLEY_SYNAPSE_PID`.
    static let synapse = ProcessCPU(pid: ProcessInfo.processInfo.environment["PARLEY_SYNAPSE_PID"])

    /// User + system seconds so far, or nil without a readable pid.
    func seconds() -> Double? {
        guard let pid, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3, utime 14 and stime 15 (1-based).
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Milliseconds of CPU per event since `start`, or nil when either reading failed.
    func milliseconds(since start: Double?, per events: Int) -> Double? {
        guard let start, let now = seconds(), events > 0 else { return nil }
        return (now - start) / Double(events) * 1000
    }

    /// Prints Synapse's CPU per event since `start` (a line per figure).
    func report(_ what: String, since start: Double?, events: Int) {
        guard let value = milliseconds(since: start, per: events) else { return }
        benchLine(String(format: "matrix synapse cpu, %@: %.1f ms per event", what, value))
    }
}

/// Synapse's access log (`PARLEY_SYNAPSE_ACCESS_LOG`, one line per finished request naming its
/// user as `{@user:server}`): requests per answer, counted the same way for every bot.
struct SynapseAccessLog {
    let path = ProcessInfo.processInfo.environment["PARLEY_SYNAPSE_ACCESS_LOG"]

    /// Where the log ends now.
    func mark() -> UInt64? {
        guard let path, let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return (attributes[.size] as? NSNumber)?.uint64Value
    }

    /// Requests by `user` logged after `mark`.
    func requests(by user: String, since mark: UInt64?) -> Int? {
        lines(by: user, since: mark)?.count
    }

    /// The log lines of `user`'s requests after `mark` (each ends with the method, path and
    /// status, e.g. `200 "PUT /_matrix/client/v3/sendToDevice/m.room.encrypted/… HTTP/1.1"`).
    func lines(by user: String, since mark: UInt64?) -> [Substring]? {
        guard let path, let mark, let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard (try? file.seek(toOffset: mark)) != nil, let data = try? file.readToEnd() else { return nil }
        let needle = " - {\(user)} Processed request"
        return String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.contains(needle) }
    }
}
