import Foundation
import Testing
import ParleyCore

/// `MessageStore.save(_:conversations:)`: what a client flush writes in one go.
@Suite struct StoreCombinedSaveTests {
    static let conversation = Conversation(channel: .group("team"), lastActivity: Date(timeIntervalSince1970: 5), digest: "n2",
                                           lastMessageID: "m2", lastSeq: 2, unreadCount: 2, isPinned: false)

    @Test(arguments: StoreTests.kinds)
    func messagesAndConversationsAreBothWritten(kind: String) throws {
        let (store, location) = try StoreTests.store(kind)
        try store.save([StoreTests.envelope(1), StoreTests.envelope(2)], conversations: [Self.conversation])
        // Either part may be empty.
        try store.save([StoreTests.envelope(3)], conversations: [])
        try store.save([], conversations: [])
        let reread: any MessageStore = try location.map { try DatabaseMessageStore(path: $0) } ?? store
        #expect(try reread.history(of: .group("team"), in: 0...10, limit: 10).map(\.id) == ["m1", "m2", "m3"])
        #expect(try reread.conversations() == [Self.conversation])
    }
}
