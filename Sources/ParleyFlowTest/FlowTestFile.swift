import YAMLCoding
import ParleyBots

/// A conversation-flow test file (`bots/<anything>.test.yaml`): which bot, who talks, the
/// virtual start time, optional profiles, and the tests.
public struct FlowTestFile: Decodable, Sendable {
    /// Id of the bot under test.
    public var bot: Located<String>
    /// The user who talks; default "tester".
    public var user: Located<String>?
    /// Virtual clock start (ISO 8601), optional.
    public var now: Located<String>?
    /// Profiles of this test's users.
    public var profiles: OrderedMap<ProfileEntry>?
    /// The tests, each starting from fresh state.
    public var tests: [FlowTestCase]

    /// The talking user's id.
    public var userID: String { user?.value ?? "tester" }
}
