import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// The sync loop survives a homeserver that stops answering, and catches up when it is back.
/// Pauses the test Synapse (SIGSTOP) for a few seconds: other suites' requests just wait.
@Suite(.enabled(if: TestSynapse.isConfigured && ProcessInfo.processInfo.environment["PARLEY_SYNAPSE_PID"] != nil))
struct MatrixReconnectTests {
    @Test func syncReconnectsAndCatchesUp() async throws {
        let pid = try #require(ProcessInfo.processInfo.environment["PARLEY_SYNAPSE_PID"].flatMap { Int32($0) })
        let (bot, _, alice, room, inbox) = try await TestHomeserver.joinedBot { config in
            // Short long-polls so a silent server is noticed within seconds.
            config.syncTimeout = .seconds(1)
            // The margin also bounds the first sync, which a loaded server can take seconds over.
            config.syncMargin = .seconds(5)
        }
        #expect(kill(pid, SIGSTOP) == 0)
        let resumed = { _ = kill(pid, SIGCONT) }
        defer { resumed() }
        let noticed = await inbox.wait(timeout: .seconds(20)) { $0.contains(.connection(.reconnecting)) }
        resumed()
        #expect(noticed)
        try await TestHomeserver.say(alice, "back again", in: room)
        #expect(await inbox.waitForText("back again"))
        let states = await inbox.events.compactMap { if case .connection(let state) = $0 { return state }; return nil }
        #expect(states.suffix(2) == [.reconnecting, .connected])
        await bot.disconnect()
    }
}
