import Foundation
import ParleyBots
import ParleyCore
import ParleyMatrix
import ParleyHub
import YAMLCoding

/// `parley broadcasts`: lists broadcast jobs with their progress, newest first; with
/// `--resume`, first finishes the unfinished ones (what a restarted host does at start).
enum BroadcastsCommand: Subcommand {
    static let name = "broadcasts"
    static let abstract = "List broadcast jobs and their progress (--resume finishes unfinished ones)."
    static let positionalUsage = ""
    static let options: [OptionSpec] = [
        .config,
        OptionSpec(long: "resume", short: nil, valueName: nil, help: "Resume unfinished jobs first and wait until they end."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let host: Host
        switch Host.open(arguments, context: context, bots: []) {
        case .failure(let error):
            context.output.errorLine("error: \(error.description)")
            return 1
        case .success(let opened): host = opened
        }
        defer { host.close() }
        do {
            if arguments.flags.contains("resume") {
                let reports = try await host.service.runUnfinished { bot in try? host.transport(for: bot) }
                for report in reports { context.output.line(report.description) }
            }
            let jobs = try host.service.jobs()
            if jobs.isEmpty { context.output.line("no broadcasts") }
            for job in jobs { context.output.line(describe(job)) }
            return 0
        } catch {
            context.output.errorLine("error: \(error.description)")
            return 1
        }
    }

    /// `ID  bot news  running  1200 sent, 3 failed, 8797 pending of 10000 (12%)  cli  2026-…`
    static func describe(_ job: BroadcastJob) -> String {
        let done = job.sent + job.failed
        let percent = job.total > 0 ? done * 100 / job.total : 100
        return "\(job.id)  bot \(job.bot)  \(job.state.rawValue)  \(job.sent) sent, \(job.failed) failed, \(job.pending) pending of \(job.total) (\(percent)%)  \(job.origin)  \(job.created.formatted(.iso8601))"
    }
}

extension BroadcastsCommand {
    /// What the broadcast commands run on: config.yaml's storage (one SQLite file for the
    /// broadcast store and, with `transport: local`, the embedded hub), its global cap, and
    /// with `transport: matrix` the bots' accounts.
    struct Host {
        let storagePath: String
        let service: BroadcastService
        let hub: Hub?
        /// The config, when its transport is Matrix.
        let matrix: HostConfig?

        /// Reads `--config` (default config.yaml) and opens its storage; errors are ready to print.
        static func open(_ arguments: ParsedArguments, context: CommandContext, bots: [String]) -> Result<Host, BroadcastError> {
            let configFile = arguments.values[OptionSpec.config.long] ?? "config.yaml"
            let text: String
            switch TextFile.read(context.resolve(configFile), displayPath: configFile) {
            case .failure(let error): return .failure(BroadcastError(.storage, error.description))
            case .success(let value): text = value
            }
            let config: HostConfig
            do {
                config = try YAMLDecoder(environment: context.environment).decode(HostConfig.self, from: text, file: configFile)
            } catch {
                return .failure(BroadcastError(.storage, error.errors.map(\.description).joined(separator: "\n")))
            }
            let problems = HostConfigValidator.validate(config, source: SourceFile(name: configFile, text: text), botIDs: bots)
            if !problems.isEmpty { return .failure(BroadcastError(.storage, problems.map(\.description).joined(separator: "\n"))) }
            let path = config.storagePath == ":memory:" ? ":memory:" : context.resolve(config.storagePath)
            do {
                let store = try BroadcastStore(path: path)
                var hub: Hub?
                var matrix: HostConfig?
                switch config.transportKind {
                case .local:
                    // Where `parley run` keeps the embedded hub: next to the host's database.
                    do { hub = try Hub(path: path == ":memory:" ? path : EmbeddedHost.sibling(of: path, "hub")) } catch {
                        return .failure(BroadcastError(.storage, "cannot open the embedded hub at \(config.storagePath): \(error)"))
                    }
                case .matrix:
                    matrix = config
                }
                let service = BroadcastService(store: store, configuration: BroadcastConfiguration(globalLimit: try globalLimit(config)))
                return .success(Host(storagePath: path, service: service, hub: hub, matrix: matrix))
            } catch {
                return .failure(error)
            }
        }

        /// The host-wide cap of `broadcasts: rate:`, if set.
        static func globalLimit(_ config: HostConfig?) throws(BroadcastError) -> RateLimiter? {
            guard let rate = config?.broadcasts?.rate else { return nil }
            guard let parsed = try? Rate(parsing: rate.value) else {
                throw BroadcastError(.invalidMessage, "invalid broadcasts rate '\(rate.value)': \(Rate.expected)")
            }
            return RateLimiter(rate: BroadcastConfiguration.bucketRate(perSecond: parsed.perSecond))
        }

        /// The sending transport of `bot`: its account on the embedded hub (created on
        /// first use, as the host does for its bots), or its Matrix account from
        /// `transport.accounts` (the session database `parley run` keeps for it, so the
        /// device and its direct rooms are reused).
        func transport(for bot: String) throws(BroadcastError) -> any Transport {
            if let matrix {
                do {
                    let folder = MatrixBotAccounts.accountFolder(storagePath: storagePath)
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    var configuration = try MatrixBotAccounts.configuration(
                        bot: bot, file: "config.yaml", config: matrix, homeserver: MatrixBotAccounts.homeserver(matrix), folder: folder)
                    configuration.log = { line in FileHandle.standardError.write(Data("parley matrix: \(bot): \(line)\n".utf8)) }
                    return try MatrixTransport(configuration: configuration)
                } catch {
                    throw BroadcastError(.invalidMessage, "cannot use bot '\(bot)' on Matrix: \(error)")
                }
            }
            guard let hub else { throw BroadcastError(.storage, "no transport configured") }
            do {
                if hub.user(bot) == nil { try hub.addUser(Profile(id: bot)) }
                return try hub.connect(user: bot)
            } catch {
                throw BroadcastError(.storage, "cannot connect bot '\(bot)' to the embedded hub: \(error)")
            }
        }

        /// Closes the hub (writing its delivery cursors).
        func close() { try? hub?.close() }
    }

    /// The options `parley run` gives its `BotHost`: the message size limit, durable
    /// broadcasts and the cron scheduler, both in the host's database (`:memory:` keeps nothing).
    static func hostOptions(config: HostConfig?, storagePath: String, clock: any ParleyClock,
                            logger: EngineLogger) throws -> BotHostOptions {
        let store = try BroadcastStore(path: storagePath)
        let service = BroadcastService(store: store, clock: clock, configuration: BroadcastConfiguration(globalLimit: try Host.globalLimit(config)),
                                       log: { logger.log(.info, at: clock.now(), bot: nil, $0, [:]) })
        return BotHostOptions(maxMessageBytes: config?.maxMessageBytes ?? HostConfig.defaultMaxMessageBytes,
                              broadcasts: service, schedules: try SchedulerStore(path: storagePath))
    }
}
