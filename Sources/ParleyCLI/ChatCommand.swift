import ParleyBots
import ParleyCore
import ParleyFlowTest
import ParleyHosting
import Synchronization

/// `parley chat`: talk to the bots of a config on a private, in-memory embedded hub.
enum ChatCommand: Subcommand {
    static let name = "chat"
    static let abstract = "Chat with your bots in the terminal (embedded hub, nothing is stored)."
    static let positionalUsage = ""
    static let options: [OptionSpec] = [
        .config,
        OptionSpec(long: "as", short: nil, valueName: "user", help: "Who you are in the chat (default: you)."),
        OptionSpec(long: "bot", short: "b", valueName: "id", help: "The bot to talk to first (default: the first bot with a greeting)."),
        OptionSpec(long: "record", short: nil, valueName: "file", help: "Write the session as a flow test (FILE.test.yaml) for 'parley test'."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let configFile = try arguments.configFile()
        let user = arguments.values["as"] ?? ChatConsole.defaultUser
        // A control character in the id would reach the terminal with every line it heads,
        // and a newline would forge one (`--as "x\nSupport: hi"`).
        if user.isEmpty || user.contains(" ") || VisibleText.hasControl(user) {
            throw UsageError("option '--as' needs a user id without spaces or control characters")
        }
        let recordFile = arguments.values["record"]
        if let recordFile, !recordFile.hasSuffix(".test.yaml") {
            throw UsageError("option '--record' needs a file name ending in .test.yaml, got '\(recordFile)'")
        }
        guard var loaded = HostLoading.load(configFile: configFile, context: context) else { return 1 }
        // The chat always runs on a private embedded hub, whatever the config's transport.
        loaded.transport = LocalTransportProvider()
        // The console's own output is the conversation; only warnings and errors are logged.
        var logger = HostLoading.logger(loaded, output: context.output)
        logger.level = max(logger.level, .warn)
        // One recording per bot (the session may start with any of them); the current bot's is written.
        let clock = SystemClock()
        let recordings = Recordings()
        let agent = ChatConsole.agentID(avoiding: [user] + loaded.catalog.bots.map(\.id))
        let definitions = Dictionary(loaded.catalog.bots.map { ($0.id, $0.definition) }, uniquingKeysWith: { first, _ in first })
        var wrap: (@Sendable (String, any Transport) -> any Transport)?
        if recordFile != nil {
            wrap = { botID, transport in
                let recording = ChatRecording(botID: botID, userID: user, clock: clock, definition: definitions[botID])
                recordings.byBot.withLock { $0[botID] = recording }
                return recording.botTransport(wrapping: transport)
            }
        }
        let running: RunningHost
        do {
            running = try await RunningHost.make(loaded, options: RunningHost.Options(
                resolve: context.resolve, logger: logger, clock: clock, storagePath: ":memory:", extraUsers: [user, agent], wrapTransport: wrap))
        } catch {
            context.output.errorLine("error: \(error.description)")
            return 1
        }
        let first: CompiledBot
        if let id = arguments.values["bot"] {
            guard let bot = running.bots.first(where: { $0.id == id }) else {
                throw UsageError("no bot '\(id)' (bots: \(running.bots.map(\.id).joined(separator: ", ")))")
            }
            first = bot
        } else {
            guard let bot = ChatConsole.firstBot(running.bots) else {
                context.output.errorLine("error: no bot to chat with")
                return 1
            }
            first = bot
        }
        if running.bots.contains(where: { $0.id == user }) { throw UsageError("'--as \(user)' is a bot's id: choose another user") }
        await running.host.start()
        let recording = recordings.byBot.withLock { $0[first.id] }
        guard var console = ChatConsole(running: running, user: user, agent: agent, bot: first, context: context,
                                            recording: recording) else {
            context.output.errorLine("error: the chat needs the embedded hub")
            return 1
        }
        let code = await console.run()
        await running.shutdown()
        if let recordFile, let recording {
            do {
                try recording.write(to: context.resolve(recordFile), profiles: recordedProfiles(loaded, running: running, users: [user] + recording.speakers))
                context.output.errorLine("session recorded to \(recordFile)")
            } catch {
                context.output.errorLine("error: cannot write \(recordFile): \(error.localizedDescription)")
                return 1
            }
        }
        return code
    }

    /// The recordings made as the host connects its bots.
    private final class Recordings: Sendable {
        let byBot = Mutex<[String: ChatRecording]>([:])
    }

    /// The profiles a recorded test needs to replay the same: the config's directory, the user
    /// and whoever else spoke (the agent).
    private static func recordedProfiles(_ loaded: LoadedHost, running: RunningHost, users: [String]) -> [Profile] {
        var ids = (loaded.catalog.profiles?.entries ?? []).map(\.name)
        for user in users where !ids.contains(user) { ids.append(user) }
        return ids.compactMap { running.localChat?.user($0) }
    }
}
