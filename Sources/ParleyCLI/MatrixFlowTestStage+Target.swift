import Foundation
import ParleyCore
import ParleyFlowTest
import ParleyMatrix
import Synchronization

extension MatrixFlowTestStage {
    /// A test against a bot Parley does not host: the test user's own connection watches the
    /// bot and records what it sends; "done" is a quiet period after the bot's answer, or the
    /// patience running out without one (an outside bot gives no other signal).
    func prepareTarget(_ target: String, request: FlowTestStageRequest, user: MatrixRegistrar.Account,
                       folder: URL) async throws -> FlowTestScene {
        let userTransport = try transport(user, database: folder.appendingPathComponent("user.db").path) { _ in false }
        try await showProfile(of: request, on: userTransport)
        var groups: [String: String] = [:]
        for group in request.groups {
            groups[group] = try await MatrixClient(homeserver: homeserver, accessToken: user.accessToken).createRoom([
                "preset": "private_chat", "name": .string(group), "invite": [.string(target)],
            ])
        }
        let names = RenamingTransport.Names(users: [request.userID: user.userID, request.botID: target], groups: groups)
        let activity = MatrixQuietTracker()
        let renamed = RenamingTransport(base: userTransport, names: names)
        let watcher = MatrixTargetWatcher(botID: request.botID, userID: request.userID, recorder: request.recorder,
                                          clock: request.clock, activity: activity)
        let events = try await renamed.connect()
        let relay = Task { for await event in events { watcher.take(event) } }
        let userSide = SendCountingTransport(base: renamed) { activity.userSent() }
        let (quiet, patience) = (quietPeriod, patience)
        return FlowTestScene(
            // Nothing runs on the bot side here; the runner's recording wrapper stays unused.
            botTransport: renamed, user: userSide, deliveredEventCount: { 0 },
            settle: { try await activity.waitForQuiet(quiet, patience: patience) },
            close: {
                relay.cancel()
                await userTransport.disconnect()
                try? FileManager.default.removeItem(at: folder)
            })
    }
}

/// Records, from the test user's side, what an outside bot sends: its messages and reactions
/// in the user's direct room (as the bot's view `.person(user)`) and in the test's groups.
struct MatrixTargetWatcher: Sendable {
    let botID: String
    let userID: String
    let recorder: OutputRecorder
    let clock: ManualClock
    let activity: MatrixQuietTracker

    func take(_ event: TransportEvent) {
        switch event {
        case .message(let envelope) where envelope.sender == botID:
            activity.botSent()
            recorder.record(BotOutput(channel: botView(envelope.channel),
                                      kind: .message(payload: envelope.payload, messageID: envelope.id,
                                                     replyTo: envelope.replyTo?.messageID),
                                      time: clock.now()))
        case .reaction(let reaction) where reaction.user == botID:
            activity.botSent()
            recorder.record(BotOutput(channel: botView(reaction.channel),
                                      kind: .reaction(emoji: reaction.emoji, messageID: reaction.messageID, added: reaction.added),
                                      time: clock.now()))
        default:
            break
        }
    }

    /// The user sees the direct room as `.person(bot)`; the runner expects the bot's view.
    private func botView(_ channel: Channel) -> Channel {
        channel == .person(botID) ? .person(userID) : channel
    }
}

/// When the conversation last moved: the user's last message, the bot's last output.
final class MatrixQuietTracker: Sendable {
    private struct Times {
        var user: ContinuousClock.Instant?
        var bot: ContinuousClock.Instant?
    }

    private let times = Mutex(Times())

    /// The user sent a message.
    func userSent() { times.withLock { $0.user = .now } }
    /// The bot sent something.
    func botSent() { times.withLock { $0.bot = .now } }

    /// Returns once the bot seems done with the user's last message: it answered and then
    /// stayed silent for `quiet`, or it has not answered within `patience` (a bot that says
    /// nothing). At once before the user said anything. At most 400 checks, so never forever.
    func waitForQuiet(_ quiet: Duration, patience: Duration) async throws {
        for _ in 0..<400 {
            let (user, bot) = times.withLock { ($0.user, $0.bot) }
            guard let user else { return }
            let now = ContinuousClock.now
            let wait: Duration
            if let bot, bot > user {
                wait = quiet - (now - bot)
            } else {
                wait = patience - (now - user)
            }
            if wait <= .zero { return }
            try await Task.sleep(for: min(wait, quiet))
        }
    }
}

/// The "engine" of a test against an outside bot: nothing to start; idle is the stage's
/// quiet period.
public struct MatrixTargetBotHost: FlowTestBotHost {
    /// Creates the host.
    public init() {}

    public func start(_ environment: FlowTestEnvironment) async throws -> any FlowTestBotSession {
        guard let settle = environment.settle else {
            throw ParleyError(.invalidArgument, "an outside bot needs a stage that watches it (MatrixFlowTestStage with a target)")
        }
        return Session(settle: settle)
    }

    private struct Session: FlowTestBotSession {
        let settle: @Sendable () async throws -> Void
        func waitUntilIdle() async throws { try await settle() }
        func stop() async {}
    }
}
