import ParleyCore

/// The end of one run of a job: logged, returned to the caller, shown by the CLI.
public struct BroadcastReport: Sendable, CustomStringConvertible {
    /// The job.
    public var job: String
    /// The sending bot.
    public var bot: String
    /// Recipients in total, sent, failed and still pending (pending only when stopped early).
    public var total: Int
    public var sent: Int
    public var failed: Int
    /// Members of the job's audience who opted out before their turn (not sent to).
    public var optedOut: Int
    public var pending: Int
    /// Messages sent by this run (a resumed job counts only its own).
    public var sentThisRun: Int
    /// How long this run took, on the host clock.
    public var duration: Duration
    /// A few failure reasons with their counts, most frequent first.
    public var failureReasons: [(reason: String, count: Int)]

    /// Messages this run sent per second.
    public var achievedRate: Double {
        let seconds = duration.timeInterval
        return seconds > 0 ? Double(sentThisRun) / seconds : Double(sentThisRun)
    }

    public var description: String {
        var text = "broadcast \(job) (\(bot)): \(sent) sent, \(failed) failed, "
        if optedOut > 0 { text += "\(optedOut) opted out, " }
        text += "\(pending) pending of \(total)"
        text += " in \(Self.format(duration.timeInterval))s (\(Int(achievedRate.rounded()))/s)"
        if !failureReasons.isEmpty {
            text += "; failures: " + failureReasons.map { "\($0.count)× \($0.reason)" }.joined(separator: ", ")
        }
        return text
    }

    private static func format(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
