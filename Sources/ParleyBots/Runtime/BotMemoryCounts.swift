import ParleyCore

/// What one bot keeps in memory per conversation or user, counted (`BotHost.memoryCounts`).
public struct BotMemoryCounts: Sendable, Hashable {
    /// Conversations with a lane: queued work, cached state, recent lines.
    public var conversations: Int
    /// Users and groups known to be greeted without asking the store.
    public var greetings: Int
    /// Profiles in the client's cache.
    public var profiles: Int
    /// Conversations in the client's list.
    public var clientConversations: Int
}

extension BotRuntime {
    func memoryCounts() async -> BotMemoryCounts {
        BotMemoryCounts(conversations: lanes.count, greetings: greeted.count, profiles: await client.profiles.cachedCount,
                        clientConversations: await client.conversations().count)
    }
}
