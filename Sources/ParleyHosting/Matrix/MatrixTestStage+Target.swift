import Foundation
import ParleyCore
import ParleyFlowTest
import ParleyMatrix

extension MatrixTestStage {
    /// A test against a bot Parley does not host: the test user's own connection watches the
    /// bot and records what it sends; "done" is a quiet period after the bot's answer, or the
    /// patience running out without one (an outside bot gives no other signal).
    func openTarget(_ target: String, run: TestRun, user: MatrixRegistrar.Account, folder: URL) async throws -> any StageSession {
        let userTransport = try transport(user, database: folder.appendingPathComponent("user.db").path) { _ in false }
        try await showProfile(of: run, on: userTransport)
        var groups: [String: String] = [:]
        for group in run.cast.groups {
            groups[group] = try await MatrixClient(homeserver: homeserver, accessToken: user.accessToken).createRoom([
                "preset": "private_chat", "name": .string(group), "invite": [.string(target)], "initial_state": .array(groupInitialState),
            ])
        }
        let names = RenamingTransport.Names(users: [run.userID: user.userID, run.bot.id: target], groups: groups)
        let activity = MatrixQuietTracker()
        let renamed = RenamingTransport(base: userTransport, names: names)
        let watcher = MatrixTargetWatcher(botID: run.bot.id, userID: run.userID, recorder: run.recorder,
                                          clock: run.clock, activity: activity)
        let events = try await renamed.connect()
        let relay = Task { for await event in events { watcher.take(event) } }
        return TargetSession(renamed: renamed, userSide: MatrixSendCountingTransport(base: renamed) { _ in activity.userSent() },
                             userMatrix: userTransport, relay: relay, folder: folder, activity: activity,
                             quietPeriod: quietPeriod, patience: patience)
    }

    /// The world of a test against an outside bot: only the test user's account, watching it.
    struct TargetSession: StageSession {
        let renamed: RenamingTransport
        let userSide: any Transport
        let userMatrix: MatrixTransport
        let relay: Task<Void, Never>
        let folder: URL
        let activity: MatrixQuietTracker
        let quietPeriod: Duration
        let patience: Duration

        /// Nothing runs on the bot side here; the runner's recording wrapper stays unused.
        var botTransport: any Transport { renamed }
        var userTransport: any Transport { userSide }
        var deliveredEventCount: Int { 0 }

        /// Returns once the bot seems done (nothing new for a while): the outside bot's idle.
        func settle() async throws { try await activity.waitForQuiet(quietPeriod, patience: patience) }

        func close() async {
            relay.cancel()
            await userMatrix.disconnect()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
