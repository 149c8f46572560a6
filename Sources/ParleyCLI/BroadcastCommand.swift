import Foundation
import ParleyBots
import ParleyCore
import ParleyHosting

/// `parley broadcast`: sends a text to many targets now, through the same machinery as a
/// scheduled broadcast (stored before the first send, rate-limited, retried, resumable).
/// With `--id`, running the same command again after a crash resumes that job.
enum BroadcastCommand: Subcommand {
    static let name = "broadcast"
    static let abstract = "Send a text to many targets now (stored, rate-limited, resumable with --id)."
    static let positionalUsage = ""
    static let options: [OptionSpec] = [
        .config,
        OptionSpec(long: "bot", short: "b", valueName: "id", help: "The bot that sends (required)."),
        OptionSpec(long: "to", short: nil, valueName: "target", help: "A recipient user:ID or group:ID; repeat for more."),
        OptionSpec(long: "to-file", short: nil, valueName: "file", help: "A file with one target a line (# comments, blank lines skipped)."),
        OptionSpec(long: "text", short: "t", valueName: "text", help: "The message; may use {{recipient.id}} and {{recipient.name}} (required)."),
        OptionSpec(long: "rate", short: nil, valueName: "n/s", help: "At most this many messages a second (like 20/s)."),
        OptionSpec(long: "id", short: nil, valueName: "id", help: "The job id; an existing job with this id is resumed, not repeated."),
        OptionSpec(long: "retry-failed", short: nil, valueName: "job",
                   help: "Send job's message again to exactly its failed recipients, as a new job (--id names it)."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        if let source = arguments.values["retry-failed"] { return try await retry(source, arguments: arguments, context: context) }
        guard let bot = arguments.values["bot"], !bot.isEmpty else { throw UsageError("option '--bot' is required") }
        guard let text = arguments.values["text"], !text.isEmpty else { throw UsageError("option '--text' is required") }
        let targets = arguments.allValues["to"] ?? []
        let toFile = arguments.values["to-file"]
        if targets.isEmpty && toFile == nil { throw UsageError("give at least one '--to' target or a '--to-file'") }
        var rate: Rate?
        if let rateText = arguments.values["rate"] {
            do { rate = try Rate(parsing: rateText) } catch { throw UsageError("option '--rate': \(error.message)") }
        }
        guard let host = BroadcastsCommand.openDesk(arguments, context: context) else { return 1 }
        let code = await send(bot: bot, text: text, targets: targets, toFile: toFile, rate: rate, arguments: arguments,
                              desk: host, context: context)
        await host.close()
        return code
    }

    private static func send(bot: String, text: String, targets: [String], toFile: String?, rate: Rate?,
                             arguments: ParsedArguments, desk host: BroadcastDesk, context: CommandContext) async -> Int32 {
        let output = context.output
        do {
            var recipients = BroadcastRecipients()
            try recipients.append(targets: targets, source: "--to")
            if let toFile { try recipients.append(file: context.resolve(toFile), displayPath: toFile) }
            let message = try BroadcastMessage(text: text)
            let transport = host.storage.isPostgres ? nil : try host.transport(for: bot)
            let id = arguments.values["id"] ?? UUID().uuidString.lowercased()
            let (job, created) = try host.service.create(id: id, bot: bot, origin: "cli", message: message, recipients: recipients, rate: rate)
            guard job.bot == bot else {
                output.errorLine("error: broadcast '\(id)' exists and belongs to bot '\(job.bot)', not '\(bot)'")
                return 1
            }
            return try await runJob(job, created: created, transport: transport, desk: host, output: output)
        } catch {
            output.errorLine("error: \(error.description)")
            return 1
        }
    }

    /// `--retry-failed JOB`: a new job for JOB's failed recipients, sent now. Only `--id` and
    /// `--config` go with it: bot, message and rate are JOB's.
    private static func retry(_ source: String, arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        for option in ["bot", "to", "to-file", "text", "rate"] where arguments.values[option] != nil {
            throw UsageError("option '--\(option)' does not go with '--retry-failed' (the job's own is used)")
        }
        return await BroadcastsCommand.withDesk(arguments, context: context) { desk throws(BroadcastError) in
            let (job, created) = try desk.service.retryFailed(source, newID: arguments.values["id"] ?? UUID().uuidString.lowercased())
            return try await runJob(job, created: created, transport: desk.storage.isPostgres ? nil : try desk.transport(for: job.bot),
                                    desk: desk, output: context.output)
        }
    }

    /// Sends `job` and prints its start and report; 1 unless every recipient got it. With no
    /// transport (a shared database), the job is left to the process that runs its bot.
    private static func runJob(_ job: BroadcastJob, created: Bool, transport: (any Transport)?, desk: BroadcastDesk,
                               output: any OutputSink) async throws(BroadcastError) -> Int32 {
        output.line(created ? "broadcast \(job.id): \(job.total) recipients"
                            : "broadcast \(job.id) exists: resuming, \(job.pending) of \(job.total) pending")
        guard let transport else {
            // Sending here too would race the process that holds the bot's lease: it picks the
            // job up within a third of the lease.
            output.line("broadcast \(job.id): queued; the parley run process that runs bot '\(job.bot)' sends it "
                        + "(follow it with 'parley broadcasts', see who runs what with 'parley cluster')")
            return 0
        }
        let report = try await desk.service.run(job.id, transport: transport)
        output.line(report.description)
        // A recipient that failed did not get the message: a script must be able to tell.
        if report.failed > 0 {
            output.errorLine("error: \(report.failed) of \(report.total) recipients failed (see 'parley broadcasts --failed \(job.id)')")
        }
        return report.pending == 0 && report.failed == 0 ? 0 : 1
    }
}
