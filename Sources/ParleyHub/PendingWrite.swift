import ParleyCore

/// A message of a persistent hub between seq assignment and its group commit. Its senders
/// (the first send and any resend that arrived meanwhile) are answered after the COMMIT.
struct PendingWrite: Sendable {
    let channel: Int
    let message: HubMessage
    /// The transport that sent it: it gets the receipt, not an event.
    let transport: Int
    var waiters: [SendWaiter]
    var losesAck: Bool
}

/// A send held back by an injected delay; dropping the connection fails it at once.
struct InFlightSend: Sendable {
    let transport: Int
    let continuation: CheckedContinuation<Void, any Error>
}

/// A message's place: channel number and seq.
struct MessageLocation: Hashable, Sendable {
    let channel: Int
    let seq: Int64
}
