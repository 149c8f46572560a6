import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import ParleyTesting
import Testing
@testable import ParleyFlowTest

/// The fixture `helper` bot running on a fresh hub (at 2026-12-01T10:00:00Z) with its sends
/// recorded as `parley chat --record` records them: what the recording tests start from.
struct RecordedHelper {
    let clock = ManualClock(start: Date(timeIntervalSince1970: 1_796_119_200))
    let hub: Hub
    let recording: ChatRecording
    let host: BotHost

    /// `profiles` are the users besides the bot, on the hub.
    init(harness: TestFileHarness, profiles: [Profile]) throws {
        let bot = try #require(harness.bots.first { $0.id == "helper" })
        hub = try Hub(clock: clock)
        for profile in profiles + [Profile(id: "helper", name: "Helper")] { try hub.addUser(profile) }
        recording = ChatRecording(botID: "helper", userID: "alice", clock: clock)
        host = BotHost(store: MemoryBotStore(), clock: clock)
        let botTransport = try hub.connect(user: "helper")
        try host.add(try CompiledBot(id: "helper", definition: bot.definition, file: bot.file),
                     connection: BotConnection(transport: recording.botTransport(wrapping: botTransport),
                                               deliveredEventCount: { botTransport.deliveredEventCount }))
    }

    /// Starts the bot (after any groups the test creates).
    func start() async {
        #expect(await host.start() == ["helper"])
    }
}
