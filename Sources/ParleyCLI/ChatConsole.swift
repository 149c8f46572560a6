import Foundation
import ParleyBots
import ParleyCore
import ParleyFlowTest
import ParleyHosting

/// The interactive console: type as a user, see the bots' answers. Each line is sent to the
/// current bot; once the host is idle, everything new from the bots is printed. Reads until
/// `/quit` or the end of input.
struct ChatConsole {
    /// Who the person at the console is, unless `--as` says otherwise.
    static let defaultUser = "you"

    let running: RunningHost
    /// The embedded hub, as the console reaches it.
    let hub: LocalChat
    let user: String
    /// Who writes `/in QUEUE TEXT` lines: `parley chat` gives it a user of its own (a member of
    /// every queue group), so the bot tells the customer and the agent apart, as a recorded test
    /// replays it; otherwise the user writes them.
    let agent: String
    var bot: CompiledBot
    let context: CommandContext
    /// Set by `--record`: the session with `bot` being recorded as a flow test.
    let recording: ChatRecording?

    /// How many messages of each conversation (by who sees it) were printed already.
    private var printed: [String: Int] = [:]
    /// Who speaks now: `user`, or another user after `/as USER`.
    private var speaker: String
    /// Everyone who spoke as `/as` made them, in order (`user` first).
    private var speakers: [String]
    /// Connections of the users who spoke other than through `user`'s client, and of anyone
    /// who reacted (`/react`), made on first use.
    private var connections: [String: any Transport] = [:]

    /// A console on `running`'s embedded hub; nil when it runs on another transport.
    init?(running: RunningHost, user: String, agent: String? = nil, bot: CompiledBot, context: CommandContext,
          recording: ChatRecording? = nil) {
        guard let hub = running.localChat else { return nil }
        self.running = running
        self.hub = hub
        self.user = user
        speaker = user
        speakers = [user]
        self.agent = agent ?? user
        self.bot = bot
        self.context = context
        self.recording = recording
    }

    /// The bot a console opens on: the first with a greeting, else the first with commands,
    /// else the first (a newcomer's first message should get an answer).
    static func firstBot(_ bots: [CompiledBot]) -> CompiledBot? {
        bots.enumerated().max { ($0.element.welcome, -$0.offset) < ($1.element.welcome, -$1.offset) }?.element
    }

    /// Every console line passes `VisibleText` (bot ids and names, what a user typed after
    /// `/switch`), not only the rendered messages: nothing on screen carries an escape sequence.
    private func say(_ line: String) { context.output.line(VisibleText.line(line)) }

    /// Runs until `/quit` or end of input; returns the exit code.
    mutating func run() async -> Int32 {
        let client: ChatClient
        let agentTransport: any Transport
        do {
            client = try ChatClient(transport: hub.connect(user: user),
                                    configuration: ChatClientConfiguration(registry: running.registry, clock: running.host.clock))
            try await client.connect()
            agentTransport = try hub.connect(user: agent)
        } catch {
            context.output.errorLine("error: cannot connect as \(user): \(error)")
            return 1
        }
        let terminal = context.input.isTerminal
        if terminal {
            say("Talking to \(bot.name) as \(user). /switch BOT changes bot, /as USER speaks as another user, /react EMOJI reacts to the bot's last message, /in QUEUE TEXT writes as an agent, /quit leaves. Bots: \(running.bots.map(\.id).joined(separator: ", "))")
        }
        await running.host.waitUntilIdle()
        printNew(after: nil)
        // Bounded by the input: every round consumes one line.
        while true {
            if terminal { context.output.write("\(speaker)> ", to: .standardOutput) }
            guard let line = await context.input.nextLine() else { break }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if text == "/quit" { break }
            if text == "/switch" || text.hasPrefix("/switch ") {
                // A flow-test file is about one bot.
                if recording != nil {
                    say("(recording a session with \(bot.name): /switch is off)")
                    continue
                }
                switchBot(String(text.dropFirst("/switch".count)).trimmingCharacters(in: .whitespaces))
                continue
            }
            if text == "/as" || text.hasPrefix("/as ") {
                speak(as: String(text.dropFirst("/as".count)).trimmingCharacters(in: .whitespaces))
                continue
            }
            if text == "/react" || text.hasPrefix("/react ") {
                await react(String(text.dropFirst("/react".count)).trimmingCharacters(in: .whitespaces))
                continue
            }
            do {
                let sentID: String
                if text.hasPrefix("/in ") {
                    // `/in QUEUE TEXT`: the agent writes in a hand-off queue's group.
                    let parts = text.dropFirst(4).split(separator: " ", maxSplits: 1)
                    guard parts.count == 2, running.queues.contains(String(parts[0])) else {
                        say("(usage: /in QUEUE TEXT; queues: \(running.queues.joined(separator: ", ")))")
                        continue
                    }
                    let group = Channel.group(String(parts[0])), body = String(parts[1])
                    let number = recording?.userWillSend(body, in: group, as: agent)
                    let receipt = try await agentTransport.send(OutgoingEnvelope(channel: group, clientMessageID: UUID(),
                                                                                 payload: TextContent(body).encoded()))
                    if let number { recording?.userSent(number, messageID: receipt.messageID, text: body) }
                    sentID = receipt.messageID
                } else if speaker != user {
                    let number = recording?.userWillSend(line, as: speaker)
                    let receipt = try await connection(of: speaker).send(OutgoingEnvelope(
                        channel: .person(bot.id), clientMessageID: UUID(), payload: TextContent(line).encoded()))
                    if let number { recording?.userSent(number, messageID: receipt.messageID, text: line) }
                    sentID = receipt.messageID
                } else {
                    let number = recording?.userWillSend(line)
                    let sent = try await client.send(TextContent(line), to: .person(bot.id))
                    if let number { recording?.userSent(number, messageID: sent.id, text: line) }
                    sentID = sent.id
                }
                await running.host.waitUntilIdle()
                printNew(after: sentID)
            } catch {
                context.output.errorLine(VisibleText.line("error: not sent: \(error)"))
            }
        }
        await running.host.waitUntilIdle()
        printNew(after: nil)
        await client.close()
        return 0
    }

    /// `/as USER`: from now on the lines are USER's, in USER's direct conversation with the
    /// bot (a user the hub does not know yet is added); `/as` alone goes back to `user`.
    private mutating func speak(as id: String) {
        let next = id.isEmpty ? user : id
        // As for `--as`: an id heads lines on screen, so no control characters.
        guard !next.contains(" "), !VisibleText.hasControl(next) else {
            say("(usage: /as USER, a user id without spaces; /as alone speaks as \(user) again)")
            return
        }
        guard !running.bots.contains(where: { $0.id == next }), next != agent else {
            say("('\(next)' is \(next == agent ? "the agent of /in" : "a bot"): choose another user)")
            return
        }
        if hub.user(next) == nil {
            do {
                try hub.addUser(Profile(id: next))
            } catch {
                context.output.errorLine(VisibleText.line("error: cannot add the user \(next): \(error)"))
                return
            }
        }
        if !speakers.contains(next) { speakers.append(next) }
        speaker = next
        say("(now speaking as \(next))")
    }

    /// `/react EMOJI`: the speaker reacts to the bot's last message in their conversation with it.
    private mutating func react(_ emoji: String) async {
        guard ValueCheck.isEmoji(emoji) else {
            say("(usage: /react EMOJI, one emoji like 👍)")
            return
        }
        let channel = Channel.person(bot.id)
        guard let last = (try? hub.messages(in: channel, seenBy: speaker))?.last(where: { $0.sender == bot.id }) else {
            say("(\(bot.name) has sent \(speaker) no message to react to)")
            return
        }
        do {
            recording?.userWillReact(emoji, on: last.id, as: speaker == user ? nil : speaker)
            try await connection(of: speaker).setReaction(emoji, on: last.id, in: channel, added: true)
        } catch {
            context.output.errorLine(VisibleText.line("error: not sent: \(error)"))
            return
        }
        await running.host.waitUntilIdle()
        printNew(after: nil)
    }

    /// `id`'s own connection to the hub (made once).
    private mutating func connection(of id: String) throws -> any Transport {
        if let connection = connections[id] { return connection }
        let connection = try hub.connect(user: id)
        connections[id] = connection
        return connection
    }

    private mutating func switchBot(_ id: String) {
        guard let next = running.bots.first(where: { $0.id == id }) else {
            say("(no bot '\(id)'; bots: \(running.bots.map(\.id).joined(separator: ", ")))")
            return
        }
        bot = next
        say("(now talking to \(next.name))")
    }

    /// Prints what the bots sent since last time (direct conversations, then queue groups
    /// with a `[queue]` mark), and the reactions on the message `sentID`.
    private mutating func printNew(after sentID: String?) {
        // The direct conversations of everyone who spoke (`/as`), then the queue groups.
        var views: [(channel: Channel, seenBy: String)] = []
        for speaker in speakers { views += running.bots.map { (Channel.person($0.id), speaker) } }
        views += running.queues.map { (Channel.group($0), user) }
        let typists = Set(speakers + [agent])
        for (channel, seenBy) in views {
            guard let envelopes = try? hub.messages(in: channel, seenBy: seenBy) else { continue }
            let key = seenBy == user ? channel.target : "\(seenBy)\u{0}\(channel.target)"
            let start = printed[key] ?? 0
            printed[key] = envelopes.count
            guard start < envelopes.count else { continue }
            for envelope in envelopes[start...] {
                if let sentID, envelope.id == sentID {
                    for reaction in envelope.reactions {
                        for reactor in reaction.users where !typists.contains(reactor) {
                            say(ChatRenderer.reaction(reaction.emoji, by: name(of: reactor)))
                        }
                    }
                }
                // What the users and the agent typed is on screen already.
                guard !typists.contains(envelope.sender), let message = try? Message(envelope: envelope, registry: running.registry) else { continue }
                let quoted = message.replyTo.flatMap { try? running.registry.decode($0.quoted) }.map { ChatRenderer.lines(for: $0).joined(separator: " ") }
                let mark = channel.kind == .group ? "[\(channel.id)] " : seenBy == user ? "" : "(to \(seenBy)) "
                for line in ChatRenderer.render(message, from: name(of: message.sender), quoted: quoted) { say(mark + line) }
            }
        }
    }

    /// `agent`, or `agent2`, … when the user or a bot has that id.
    static func agentID(avoiding taken: [String]) -> String {
        var id = "agent", number = 1
        while taken.contains(id) {
            number += 1
            id = "agent\(number)"
        }
        return id
    }

    private func name(of id: String) -> String {
        running.bots.first { $0.id == id }?.name ?? hub.user(id)?.displayName ?? id
    }
}
