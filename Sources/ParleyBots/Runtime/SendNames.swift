import Foundation

/// Names the sends made in answer to a received message: derived from the bot, the message,
/// the part of the handling (the greeting, the plan, a relay, an agent command) and the
/// send's place in it. A message handled again after a restart (it was still in the inbox)
/// sends under the same client message numbers, so the server shows nothing twice.
struct SendNames: Sendable, Hashable {
    var bot: String
    var message: String
    var part: String

    /// The client message number of the send at `index` (to `recipient`, for a broadcast's).
    func clientMessageID(at index: Int, recipient: String? = nil) -> UUID {
        UUID(namespace: BroadcastUUID.namespace, name: "handled\u{0}\(bot)\u{0}\(message)\u{0}\(part)\u{0}\(index)\u{0}\(recipient ?? "")")
    }
}
