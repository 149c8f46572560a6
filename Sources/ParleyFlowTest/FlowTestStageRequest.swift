import ParleyCore

/// What a stage needs to know to set up one test.
public struct FlowTestStageRequest: Sendable {
    /// The user who talks in the test.
    public let userID: String
    /// The bot under test.
    public let botID: String
    /// Every user of the test with the profile it declares.
    public let users: [Profile]
    /// Every group the test names.
    public let groups: [String]
    /// Each group's members: the test user, the bot, and every other user who speaks in it
    /// (`send: {…, in: GROUP, as: USER}`), since the server refuses a non-member's message.
    public let members: [String: [String]]
    /// The users other than the test user who speak (`as:`), in order of appearance; the
    /// runner asks `FlowTestScene.connect` for their connections when they first speak.
    public let speakers: [String]
    /// The test's virtual clock.
    public let clock: FlowTestClock
    /// Where the bot's outputs are recorded (a stage that watches a bot it does not host
    /// records what it sees here; otherwise the runner records the bot's sends).
    public let recorder: OutputRecorder
}
