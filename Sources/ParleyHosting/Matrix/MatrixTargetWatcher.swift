import ParleyCore
import ParleyFlowTest

/// Records, from the test user's side, what an outside bot sends: its messages and reactions
/// in the user's direct room (as the bot's view `.person(user)`) and in the test's groups.
struct MatrixTargetWatcher: Sendable {
    let botID: String
    let userID: String
    let recorder: OutputRecorder
    let clock: VirtualClock
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
