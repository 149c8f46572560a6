import Foundation
import ParleyBots
import Testing

/// A store that cannot reach its PostgreSQL says where, without the URL's password.
@Suite struct StorePasswordTests {
    static let url = "postgres://parley:hunter2secret@127.0.0.1:1/parley#parley"

    @Test func openingErrorsNameTheDatabaseWithoutItsPassword() {
        var messages: [String] = []
        do { _ = try DatabaseBotStore(path: Self.url) } catch { messages.append("\(error)") }
        do { _ = try BroadcastStore(path: Self.url) } catch { messages.append("\(error)") }
        do { _ = try SchedulerStore(path: Self.url) } catch { messages.append("\(error)") }
        #expect(messages.count == 3)
        for message in messages {
            #expect(!message.contains("hunter2secret"), "\(message)")
            #expect(message.contains("127.0.0.1:1"))
        }
    }
}
