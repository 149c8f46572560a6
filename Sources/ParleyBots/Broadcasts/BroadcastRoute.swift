import ParleyCore

/// Where a broadcast's messages go. Through a bot's `ChatClient` (`client(_:)`), they pass
/// its outbox at broadcast priority, so the bot's answers to users go first whenever both
/// wait; through a bare transport (`transport(_:)`, the `parley broadcast` command, which
/// has no bot running), straight to the server.
public struct BroadcastRoute: Sendable {
    /// Sends one recipient's message (its client message number is the job's, so a resend
    /// after a crash is recognised by the server).
    let send: @Sendable (OutgoingEnvelope) async throws -> SendReceipt
    /// Profiles of up to 100 users, for `{{recipient.name}}`.
    let profiles: @Sendable ([String]) async throws -> [Profile]
    /// Sets up a page's channels before its sends (`Transport.prepareSends(to:)`).
    let prepare: @Sendable ([Channel]) async -> Void

    /// Straight through `transport`.
    public static func transport(_ transport: any Transport) -> BroadcastRoute {
        BroadcastRoute(send: { try await transport.send($0) }, profiles: { try await transport.profiles(of: $0) },
                       prepare: { await transport.prepareSends(to: $0) })
    }

    /// Through `client`'s outbox, after its interactive and normal traffic.
    public static func client(_ client: ChatClient) -> BroadcastRoute {
        BroadcastRoute(send: { try await client.send($0, priority: .broadcast) },
                       profiles: { try await client.transport.profiles(of: $0) },
                       prepare: { await client.transport.prepareSends(to: $0) })
    }
}
