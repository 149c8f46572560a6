import ParleyBots
import ParleyCore
import ParleyFlowTest

/// `parley chat`: talk to the bots of a config on a private, in-memory embedded hub.
enum ChatCommand: Subcommand {
    static let name = "chat"
    static let abstract = "Chat with your bots in the terminal (embedded hub, nothing is stored)."
    static let positionalUsage = ""
    static let options: [OptionSpec] = [
        .config,
        OptionSpec(long: "as", short: nil, valueName: "user", help: "Who you are in the chat (default: you)."),
        OptionSpec(long: "bot", short: "b", valueName: "id", help: "The bot to talk to first (default: the first bot)."),
        OptionSpec(long: "record", short: nil, valueName: "file", help: "Write the session as a flow test (FILE.test.yaml) for 'parley test'."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let configFile = try arguments.configFile()
        let user = arguments.values["as"] ?? "you"
        if user.isEmpty || user.contains(" ") { throw UsageError("option '--as' needs a user id without spaces") }
        guard let catalog = await HostLoading.load(configFile: configFile, context: context) else { return 1 }
        // The console's own output is the conversation; only warnings and errors are logged.
        var logger = EmbeddedHost.logger(for: catalog.config, output: context.output)
        logger.level = max(logger.level, .warn)
        let recordFile = arguments.values["record"]
        if let recordFile, !recordFile.hasSuffix(".test.yaml") {
            throw UsageError("option '--record' needs a file name ending in .test.yaml, got '\(recordFile)'")
        }
        // One recording per bot (the session may start with any of them); the current bot's is written.
        let clock = SystemClock()
        var recordings: [String: ChatRecording] = [:]
        let agent = ChatConsole.agentID(avoiding: [user] + catalog.bots.map(\.id))
        let embedded: EmbeddedHost
        do {
            embedded = try EmbeddedHost(catalog: catalog, storagePath: ":memory:", logger: logger, extraUsers: [user, agent], clock: clock,
                                        wrapTransport: recordFile == nil ? nil : { botID, transport in
                let recording = ChatRecording(botID: botID, userID: user, clock: clock,
                                              definition: catalog.bots.first { $0.id == botID }?.definition)
                recordings[botID] = recording
                return recording.botTransport(wrapping: transport)
            })
        } catch {
            context.output.errorLine("error: \(error)")
            return 1
        }
        let first: CompiledBot
        if let id = arguments.values["bot"] {
            guard let bot = embedded.bots.first(where: { $0.id == id }) else {
                throw UsageError("no bot '\(id)' (bots: \(embedded.bots.map(\.id).joined(separator: ", ")))")
            }
            first = bot
        } else {
            guard let bot = embedded.bots.first else {
                context.output.errorLine("error: no bot to chat with")
                return 1
            }
            first = bot
        }
        if embedded.bots.contains(where: { $0.id == user }) { throw UsageError("'--as \(user)' is a bot's id: choose another user") }
        await embedded.host.start()
        var console = ChatConsole(embedded: embedded, user: user, agent: agent, bot: first, context: context, recording: recordings[first.id])
        let code = await console.run()
        await embedded.shutdown()
        if let recordFile, let recording = recordings[first.id] {
            do {
                try recording.write(to: context.resolve(recordFile),
                                    profiles: recordedProfiles(catalog, embedded: embedded, users: [user] + recording.speakers))
                context.output.errorLine("session recorded to \(recordFile)")
            } catch {
                context.output.errorLine("error: cannot write \(recordFile): \(error.localizedDescription)")
                return 1
            }
        }
        return code
    }

    /// The profiles a recorded test needs to replay the same: the config's directory, the user
    /// and whoever else spoke (the agent).
    private static func recordedProfiles(_ catalog: HostCatalog, embedded: EmbeddedHost, users: [String]) -> [Profile] {
        var ids = (catalog.profiles?.entries ?? []).map(\.name)
        for user in users where !ids.contains(user) { ids.append(user) }
        return ids.compactMap { embedded.hub.user($0) }
    }
}
