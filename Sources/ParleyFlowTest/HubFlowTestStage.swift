import ParleyCore
import ParleyHub

/// The default stage: a fresh in-memory hub per test on the test's virtual clock, with the
/// cast's users (and profiles) and groups (the test user and the bot as members).
public struct HubFlowTestStage: FlowTestStage {
    /// Creates the stage.
    public init() {}

    public var supportsVirtualTime: Bool { true }

    public func prepare(_ request: FlowTestStageRequest) async throws -> FlowTestScene {
        let hub = try Hub(clock: request.clock)
        for user in request.users { try hub.addUser(user) }
        let members = request.userID == request.botID ? [request.userID] : [request.userID, request.botID]
        for group in request.groups { try hub.createGroup(group, members: members, by: request.botID) }
        let bot = try hub.connect(user: request.botID)
        return FlowTestScene(botTransport: bot, user: try hub.connect(user: request.userID),
                             deliveredEventCount: { bot.deliveredEventCount }, hub: hub)
    }
}
