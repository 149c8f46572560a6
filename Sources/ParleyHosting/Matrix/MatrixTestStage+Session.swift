import Foundation
import ParleyCore
import ParleyFlowTest
import ParleyMatrix
import Synchronization

extension MatrixTestStage {
    /// A test's world on the homeserver: the bot's and the people's accounts, connected.
    final class Session: StageSession {
        /// A new connection of the bot's account on its database: as the bot sees it (renamed,
        /// counted) and the Matrix transport underneath.
        typealias BotConnector = @Sendable () throws -> (renamed: any Transport, matrix: MatrixTransport)

        let stage: MatrixTestStage
        let folder: URL
        let counters: MatrixIdleCounters
        let speakerAccounts: [String: MatrixRegistrar.Account]
        private let connectBot: BotConnector
        /// The bot's current connection: a restart replaces it.
        private let bot: Mutex<(renamed: any Transport, matrix: MatrixTransport)>
        let userSide: any Transport
        /// A speaker's connection as the test sees it: renamed, its sends counted.
        let countingSends: @Sendable (any Transport) -> any Transport
        let userMatrix: MatrixTransport
        let opened = OpenedTransports()

        init(stage: MatrixTestStage, folder: URL, counters: MatrixIdleCounters, speakerAccounts: [String: MatrixRegistrar.Account],
             connectBot: @escaping BotConnector, bot: (renamed: any Transport, matrix: MatrixTransport), userSide: any Transport,
             countingSends: @escaping @Sendable (any Transport) -> any Transport, userMatrix: MatrixTransport) {
            self.stage = stage
            self.folder = folder
            self.counters = counters
            self.speakerAccounts = speakerAccounts
            self.connectBot = connectBot
            self.bot = Mutex(bot)
            self.userSide = userSide
            self.countingSends = countingSends
            self.userMatrix = userMatrix
        }

        var botTransport: any Transport { bot.withLock { $0.renamed } }
        var userTransport: any Transport { userSide }
        var deliveredEventCount: Int { counters.deliveredEventCount }

        func connect(_ speaker: String) async throws -> any Transport {
            guard let account = speakerAccounts[speaker] else {
                throw ParleyError(.invalidArgument, "'\(speaker)' is not a speaker of this test")
            }
            let transport = try stage.transport(account, database: folder.appendingPathComponent("\(speaker).db").path) { _ in false }
            opened.add(transport)
            return countingSends(transport)
        }

        /// The bot's account again, on its database: the new connection goes on from the stored
        /// sync position, and the relay count starts over with it (`MatrixIdleCounters.newConnection`),
        /// as the restarted bot's does.
        func reconnectBot() async throws -> any Transport {
            await bot.withLock { $0.matrix }.disconnect()
            let connection = try connectBot()
            bot.withLock { $0 = connection }
            return connection.renamed
        }

        func close() async {
            await userMatrix.disconnect()
            await bot.withLock { $0.matrix }.disconnect()
            for transport in opened.all { await transport.disconnect() }
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
