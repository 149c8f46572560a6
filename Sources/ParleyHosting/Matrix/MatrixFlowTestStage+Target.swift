import Foundation
import ParleyCore
import ParleyFlowTest
import ParleyMatrix

extension MatrixFlowTestStage {
    /// A test against a bot Parley does not host: the test user's own connection watches the
    /// bot and records what it sends; "done" is a quiet period after the bot's answer, or the
    /// patience running out without one (an outside bot gives no other signal).
    func prepareTarget(_ target: String, request: FlowTestStageRequest, user: MatrixRegistrar.Account,
                       folder: URL) async throws -> FlowTestScene {
        let userTransport = try transport(user, database: folder.appendingPathComponent("user.db").path) { _ in false }
        try await showProfile(of: request, on: userTransport)
        var groups: [String: String] = [:]
        for group in request.groups {
            groups[group] = try await MatrixClient(homeserver: homeserver, accessToken: user.accessToken).createRoom([
                "preset": "private_chat", "name": .string(group), "invite": [.string(target)],
            ])
        }
        let names = RenamingTransport.Names(users: [request.userID: user.userID, request.botID: target], groups: groups)
        let activity = MatrixQuietTracker()
        let renamed = RenamingTransport(base: userTransport, names: names)
        let watcher = MatrixTargetWatcher(botID: request.botID, userID: request.userID, recorder: request.recorder,
                                          clock: request.clock, activity: activity)
        let events = try await renamed.connect()
        let relay = Task { for await event in events { watcher.take(event) } }
        let userSide = MatrixSendCountingTransport(base: renamed) { activity.userSent() }
        let (quiet, patience) = (quietPeriod, patience)
        return FlowTestScene(
            // Nothing runs on the bot side here; the runner's recording wrapper stays unused.
            botTransport: renamed, user: userSide, deliveredEventCount: { 0 },
            settle: { try await activity.waitForQuiet(quiet, patience: patience) },
            close: {
                relay.cancel()
                await userTransport.disconnect()
                try? FileManager.default.removeItem(at: folder)
            })
    }
}
