import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Testing

/// A bot that falls behind stops taking from the server until its lanes drain: nothing is
/// lost, nothing reordered, and the host still finds itself idle.
@Suite struct BotBacklogTests {
    static let echo = """
        id: support
        commands:
          echo:
            args: [text]
            reply: "{{args.text}}"
        """

    @Test func aFloodPastTheBacklogLimitIsAnsweredCompletelyInOrder() async throws {
        let fixture = try BotFixture(yaml: Self.echo)
        // A limit of 2: any batch of three or more messages makes the receiving task wait.
        try await fixture.start(options: BotHostOptions(backlogLimit: 2))
        let senders = [try await fixture.client("alice"), try await fixture.client("bob")]
        let count = 150
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in senders {
                group.addTask {
                    for index in 0..<count { _ = try await sender.send(TextContent("/echo \(index)"), to: .person("support")) }
                }
            }
            try await group.waitForAll()
        }
        try await fixture.idle()
        let expected = (0..<count).map { String($0) }
        #expect(try fixture.botTexts(seenBy: "alice") == expected)
        #expect(try fixture.botTexts(seenBy: "bob") == expected)
        await fixture.shutdown()
    }
}
