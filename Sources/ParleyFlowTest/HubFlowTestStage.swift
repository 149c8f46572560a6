import ParleyCore
import ParleyHub

/// The default stage: a fresh in-memory hub per test on the test's virtual clock, with the
/// cast's users (and profiles) and groups (the test user, the bot and the group's other
/// speakers as members).
public struct HubFlowTestStage: FlowTestStage {
    /// Creates the stage.
    public init() {}

    public var supportsVirtualTime: Bool { true }

    public func prepare(_ request: FlowTestStageRequest) async throws -> FlowTestScene {
        let hub = try Hub(clock: request.clock)
        for user in request.users { try hub.addUser(user) }
        let members = request.userID == request.botID ? [request.userID] : [request.userID, request.botID]
        for group in request.groups { try hub.createGroup(group, members: request.members[group] ?? members, by: request.botID) }
        let bot = try hub.connect(user: request.botID)
        // In memory a send returns once the hub has handed the message to the bot's stream,
        // whoever sent it: the bot's own count already covers other speakers.
        return FlowTestScene(botTransport: bot, user: try hub.connect(user: request.userID),
                             deliveredEventCount: { bot.deliveredEventCount }, hub: hub,
                             connect: { user in try hub.connect(user: user) })
    }
}
