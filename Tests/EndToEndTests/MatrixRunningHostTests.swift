import Foundation
import ParleyTesting
import ParleyBots
import ParleyCore
import ParleyHosting
import ParleyMatrix
import Testing

/// A host composed by `RunningHost` on the live homeserver, as `parley run --config matrix.yaml`
/// composes it: the rooms its bots use are joined at start, by the names the bot files use.
@Suite(.enabled(if: TestSynapse.isConfigured, "needs PARLEY_MATRIX_HOMESERVER (scripts/synapse start)"))
struct MatrixRunningHostTests {
    /// A folder with a config for `bot` (its account's token) whose `agents` room is `room`,
    /// and a bot that hands off to `agents`.
    private func folder(bot: MatrixRegistrar.Account, room: String) throws -> String {
        try MatrixBotServer.deskFolder(account: bot, rooms: ["agents": room], botFile: """
            name: Desk
            commands:
              human: { handoff: { queue: agents, note: help } }
            """)
    }

    private func make(_ folder: String) async throws(HostError) -> RunningHost { try await MatrixBotServer.runningHost(folder) }

    @Test func theBotJoinsTheRoomsItUsesAtStart() async throws {
        let bot = try await TestSynapse.register("desk")
        let agent = try await TestSynapse.register("agent")
        let alias = "agents-\(UUID().uuidString.prefix(8).lowercased())"
        let room = try await MatrixClient(homeserver: try TestSynapse.url(), accessToken: agent.accessToken).createRoom([
            "preset": "private_chat", "room_alias_name": .string(alias), "invite": [.string(bot.userID)],
        ])
        let folder = try folder(bot: bot, room: "#\(alias):localhost")
        let host = try await make(folder)
        let members = try await MatrixClient(homeserver: try TestSynapse.url(), accessToken: agent.accessToken).joinedMembers(room: room)
        #expect(Set(members) == [agent.userID, bot.userID])
        // Its client keeps its outbox beside the host's storage, as on the embedded hub.
        #expect(FileManager.default.fileExists(atPath: folder + "/state/parley.desk.db"))
        #expect(FileManager.default.fileExists(atPath: folder + "/state/matrix-desk.db"))
        await host.shutdown()
    }

    @Test func aRoomTheBotCannotJoinIsAnErrorNamingTheRoomAndTheBot() async throws {
        let bot = try await TestSynapse.register("desk")
        let folder = try folder(bot: bot, room: "#nowhere-\(UUID().uuidString.prefix(8).lowercased()):localhost")
        do {
            _ = try await make(folder)
            Issue.record("the host started without its room")
        } catch {
            #expect(error.description.contains("bot 'desk' (\(bot.userID)) cannot join room 'agents' (#nowhere-"), "\(error)")
        }
    }
}
