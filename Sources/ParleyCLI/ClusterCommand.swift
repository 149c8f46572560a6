import Foundation
import ParleyBots
import ParleyHosting

/// `parley cluster`: on a shared PostgreSQL database (`storage.url`), the `parley run`
/// processes, the bots each runs with their lease ages, and the broadcast jobs by the process
/// sending them.
enum ClusterCommand: Subcommand {
    static let name = "cluster"
    static let abstract = "Show the processes sharing storage.url, the bots each runs (lease ages) and their broadcasts."
    static let positionalUsage = ""
    static let options: [OptionSpec] = [.config]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        return await BroadcastsCommand.withDesk(arguments, context: context) { desk throws(BroadcastError) in
            let status: ClusterStatus
            do {
                status = try ClusterStatus.read(desk.storage)
            } catch {
                throw BroadcastError(.storage, "\(error)")
            }
            let jobs = try desk.service.jobs().filter { $0.state == .running || $0.state == .paused }
            var senders: [String: [BroadcastSender]] = [:]
            for job in jobs { senders[job.id] = try desk.service.store.senders(job: job.id, now: Date()) }
            for line in describe(status, jobs: jobs, senders: senders) { context.output.line(line) }
            return 0
        }
    }

    /// The lines `parley cluster` prints.
    /// `senders`: each job's part per process (see `BroadcastStore.senders(job:now:)`).
    static func describe(_ status: ClusterStatus, jobs: [BroadcastJob], senders: [String: [BroadcastSender]] = [:]) -> [String] {
        func seconds(_ value: Double) -> String { String(format: "%.1f s", max(0, value)) }
        var lines = ["processes: \(status.processes.count)"]
        for process in status.processes {
            let bots = process.bots.isEmpty ? "standing by" : "runs " + process.bots.joined(separator: ", ")
            lines.append("  \(process.id)  pid \(process.pid) on \(process.host)  up \(seconds(process.upSeconds)), "
                         + "seen \(seconds(process.seenSecondsAgo)) ago  \(bots)")
        }
        lines.append("bots: \(status.bots.count)")
        for bot in status.bots {
            guard let holder = bot.holder else {
                lines.append("  \(bot.id)  free (lease expired \(seconds(-bot.expiresInSeconds)) ago): the next process to look takes it")
                continue
            }
            lines.append("  \(bot.id)  run by \(holder)  generation \(bot.generation), held \(seconds(bot.heldForSeconds)), "
                         + "renewed \(seconds(bot.renewedSecondsAgo)) ago, expires in \(seconds(bot.expiresInSeconds))")
        }
        lines.append("broadcasts: \(jobs.count) running or paused")
        for job in jobs {
            let holder = status.bots.first { $0.id == job.bot }?.holder ?? "no process (the bot's lease is free)"
            lines.append("  " + BroadcastsCommand.describe(job) + "  bot run by \(holder)")
            // Every process may send a job without a rate (each claims its own chunks).
            for sender in senders[job.id] ?? [] {
                let process = status.processes.first { $0.id.hasPrefix(sender.process + ":") }?.id ?? "\(sender.process) (gone)"
                lines.append("    \(process): \(sender.done) done, \(sender.holding) claimed")
            }
        }
        return lines
    }
}
