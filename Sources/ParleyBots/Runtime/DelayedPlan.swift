import Foundation
import ParleyCore

/// The rest of a plan after a `wait`, kept in the conversation's state (so in the engine
/// store) until it has run: a restart during the wait runs it when it is due.
struct DelayedPlan: Sendable, Hashable, Codable {
    /// Names the plan; its sends take client message numbers derived from it.
    var id: UUID
    /// When the rest runs.
    var due: Date
    /// What is left to run. Shortened as effects run, so a restart goes on from the effect
    /// that was running rather than from the start.
    var effects: [Effect]
    /// Index of `effects[0]` in the whole plan: durable broadcast jobs and sends are named by
    /// it, so two effects of one plan never share a name.
    var offset: Int
    /// The message that started the plan (to quote and react to), if any.
    var trigger: ReceivedMessage?

    /// The client message number of the send at `index` of the whole plan (to `recipient`,
    /// for a broadcast's sends): the same after a restart, so a send repeated after a crash
    /// is recognised by the server, not shown twice.
    func clientMessageID(at index: Int, recipient: String? = nil) -> UUID {
        UUID(namespace: BroadcastUUID.namespace, name: "delayed\u{0}\(id.uuidString)\u{0}\(index)\u{0}\(recipient ?? "")")
    }
}
