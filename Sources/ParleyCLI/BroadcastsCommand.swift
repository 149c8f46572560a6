import Foundation
import ParleyBots
import ParleyHosting

/// `parley broadcasts`: lists broadcast jobs with their progress, newest first; with
/// `--resume`, first finishes the unfinished ones (what a restarted host does at start).
enum BroadcastsCommand: Subcommand {
    static let name = "broadcasts"
    static let abstract = "List broadcast jobs and their progress (--resume finishes unfinished ones)."
    static let positionalUsage = ""
    static let options: [OptionSpec] = [
        .config,
        OptionSpec(long: "resume", short: nil, valueName: nil, help: "Resume unfinished jobs first and wait until they end."),
        OptionSpec(long: "failed", short: nil, valueName: "job", help: "List the job's failed recipients: target, error code, message."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        return await withDesk(arguments, context: context) { desk throws(BroadcastError) in
            if arguments.flags.contains("resume") && desk.storage.isPostgres {
                throw BroadcastError(.invalidState, "the storage is shared (storage.url): the parley run processes resume unfinished "
                                     + "jobs themselves; '--resume' would send them a second time")
            }
            if arguments.flags.contains("resume") {
                let reports = try await desk.service.runUnfinished { bot in try? desk.transport(for: bot) }
                for report in reports { context.output.line(report.description) }
            }
            if let id = arguments.values["failed"] { return try listFailures(of: id, desk: desk, output: context.output) }
            let jobs = try desk.service.jobs()
            if jobs.isEmpty { context.output.line("no broadcasts") }
            for job in jobs { context.output.line(describe(job)) }
            return 0
        }
    }

    /// Runs `body` on the desk of `--config` and closes it; an error is printed (exit 1), as
    /// is a desk that cannot open.
    static func withDesk(_ arguments: ParsedArguments, context: CommandContext,
                         _ body: (BroadcastDesk) async throws(BroadcastError) -> Int32) async -> Int32 {
        guard let desk = openDesk(arguments, context: context) else { return 1 }
        let code: Int32
        do {
            code = try await body(desk)
        } catch {
            context.output.errorLine("error: \(error.description)")
            code = 1
        }
        await desk.close()
        return code
    }

    /// `user:u7  notFound  no such user`, one failed recipient a line, then a count and how
    /// to retry them.
    private static func listFailures(of id: String, desk: BroadcastDesk, output: any OutputSink) throws(BroadcastError) -> Int32 {
        guard try desk.service.store.job(id) != nil else { throw BroadcastError(.unknownJob, "no broadcast with id '\(id)'") }
        let failures = try desk.service.store.failures(job: id)
        for failure in failures { output.line("\(failure.channel.target)  \(failure.code)  \(failure.message)") }
        output.line(failures.isEmpty ? "broadcast \(id): no failed recipients"
                                     : "broadcast \(id): \(failures.count) failed (retry: parley broadcast --retry-failed \(id))")
        return 0
    }

    /// `ID  bot news  running  1200 sent, 3 failed, 8797 pending of 10000 (12%)  cli  2026-…`;
    /// a paused job says `paused`, a cancelled one counts its unsent recipients as `cancelled`.
    static func describe(_ job: BroadcastJob) -> String {
        let done = job.sent + job.failed + job.optedOut
        let percent = job.total > 0 ? done * 100 / job.total : 100
        let left = job.state == .cancelled ? "\(job.cancelled) cancelled" : "\(job.pending) pending"
        let optedOut = job.optedOut > 0 ? "\(job.optedOut) opted out, " : ""
        let audience = job.audience.map { "  audience \($0)" } ?? ""
        return "\(job.id)  bot \(job.bot)  \(job.state.rawValue)  \(job.sent) sent, \(job.failed) failed, \(optedOut)\(left) of \(job.total) (\(percent)%)  \(job.origin)\(audience)  \(job.created.formatted(.iso8601))"
    }

    /// The desk of `--config` (default config.yaml); its errors are printed (nil then).
    static func openDesk(_ arguments: ParsedArguments, context: CommandContext) -> BroadcastDesk? {
        let configFile = arguments.values[OptionSpec.config.long] ?? "config.yaml"
        let resolve = { @Sendable [context] (path: String) in context.resolve(path) }
        switch BroadcastDesk.open(configFile: configFile, resolve: resolve, environment: context.environment) {
        case .failure(let error) where error.code == .invalidConfig:
            // Each problem already reads `file:line:column: error: …`, as `parley check` shows it.
            context.output.errorLine(error.message)
            return nil
        case .failure(let error):
            context.output.errorLine("error: \(error.description)")
            return nil
        case .success(let desk):
            return desk
        }
    }
}
