import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// Sessions against the real Synapse: token and password logins, their errors, device reuse.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixLoginTests {
    @Test func badTokenIsUnauthorized() async throws {
        var bot = try await TestHomeserver.register("bot")
        bot.client.accessToken = "syt_not_a_real_token"
        let transport = try TestHomeserver.transport(bot)
        await #expect {
            _ = try await transport.connect()
        } throws: { error in
            let error = error as? ParleyError
            return error?.code == .unauthorized && error?.context["errcode"] == "M_UNKNOWN_TOKEN"
                && error?.message.hasPrefix("access token of \(bot.userID) rejected by") == true
        }
    }

    @Test func tokenOfAnotherUserIsRefused() async throws {
        let bot = try await TestHomeserver.register("bot")
        let other = try await TestHomeserver.register("other")
        var config = MatrixConfiguration(homeserver: try TestSynapse.url(), userID: bot.userID,
                                         credentials: .accessToken(other.client.accessToken ?? ""),
                                         databasePath: TestHomeserver.freshDatabasePath())
        config.log = { _ in }
        let transport = try MatrixTransport(configuration: config)
        await #expect {
            _ = try await transport.connect()
        } throws: { error in
            (error as? ParleyError)?.message == "access token belongs to \(other.userID), configured as \(bot.userID)"
        }
    }

    @Test func unreachableServerIsNetworkUnavailable() async throws {
        let bot = try await TestHomeserver.register("bot")
        var config = MatrixConfiguration(homeserver: try #require(URL(string: "http://127.0.0.1:1")), userID: bot.userID,
                                         credentials: .accessToken("x"), databasePath: TestHomeserver.freshDatabasePath())
        config.requestTimeout = .seconds(5)
        let transport = try MatrixTransport(configuration: config)
        await #expect {
            _ = try await transport.connect()
        } throws: { error in
            (error as? ParleyError)?.code == .networkUnavailable
        }
    }

    @Test func wrongPasswordIsUnauthorized() async throws {
        var bot = try await TestHomeserver.register("bot")
        bot.password = "wrong"
        let transport = try TestHomeserver.transport(bot, password: true)
        await #expect {
            _ = try await transport.connect()
        } throws: { error in
            let error = error as? ParleyError
            return error?.code == .unauthorized && error?.message.hasPrefix("login of \(bot.userID) refused: M_FORBIDDEN") == true
        }
    }

    @Test func passwordLoginKeepsItsDeviceAcrossRestarts() async throws {
        let bot = try await TestHomeserver.register("bot")
        let database = TestHomeserver.freshDatabasePath()
        let first = try TestHomeserver.transport(bot, password: true, databasePath: database)
        _ = try await first.connect()
        await first.disconnect()
        let second = try TestHomeserver.transport(bot, password: true, databasePath: database)
        _ = try await second.connect()
        await second.disconnect()
        // The registration made one device, the password login one more; the restart reused it.
        let devices = try await bot.client.request("GET", MatrixClient.clientPath("devices"))["devices"]?.arrayValue ?? []
        #expect(devices.count == 2)
        #expect(devices.filter { $0["display_name"]?.stringValue == "Parley" }.count == 1)
    }

    @Test func aPasswordLoginKeepsNoTokenOnDisk() async throws {
        let bot = try await TestHomeserver.register("bot")
        let database = TestHomeserver.freshDatabasePath()
        let transport = try TestHomeserver.transport(bot, password: true, databasePath: database)
        _ = try await transport.connect()
        let token = try #require(await transport.client.accessToken)
        #expect(MatrixStoreTests.bytesOnDisk(database).range(of: Data(token.utf8)) == nil)
        await transport.disconnect()
        #expect(MatrixStoreTests.bytesOnDisk(database).range(of: Data(token.utf8)) == nil)
        // What is kept is the device, so the next start logs in as it again.
        #expect(try await MatrixStore(path: database).session(userID: bot.userID).deviceID != nil)
    }

    @Test func malformedUserIDIsRejectedAtInit() throws {
        let config = MatrixConfiguration(homeserver: try TestSynapse.url(), userID: "bot", credentials: .accessToken("x"),
                                         databasePath: TestHomeserver.freshDatabasePath())
        #expect(throws: ParleyError(.invalidArgument, "Matrix user id 'bot' must look like @name:server", context: ["field": "userID"])) {
            _ = try MatrixTransport(configuration: config)
        }
    }
}
