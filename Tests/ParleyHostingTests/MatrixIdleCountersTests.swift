import Testing
@testable import ParleyHosting

/// A Matrix flow test's idle waits for the very messages the people sent, by id: an event the
/// bot's connection relays that no send accounts for cannot stand in for one still on its way.
@Suite struct MatrixIdleCountersTests {
    @Test func aSentMessageIsAwaitedUntilItsOwnEventIsRelayed() {
        let counters = MatrixIdleCounters()
        let connection = counters.newConnection()
        counters.relayed(on: connection)
        counters.relayed(on: connection)
        // A person's message the test did not send now (a repeat, say) is relayed and counted.
        counters.relayed(on: connection, personMessage: "$repeat")
        #expect(counters.deliveredEventCount == 3)
        counters.sent(messageID: "$first")
        // A count of sends (2 other events + 1 sent) would say 3, which the 3 relayed already
        // reach: idle one message early. The id keeps it owed.
        #expect(counters.deliveredEventCount == 4)
        counters.relayed(on: connection, personMessage: "$first")
        #expect(counters.deliveredEventCount == 4)
    }

    @Test func aMessageRelayedBeforeItsSendReturnedIsNotAwaitedAgain() {
        let counters = MatrixIdleCounters()
        let connection = counters.newConnection()
        counters.relayed(on: connection, personMessage: "$fast")
        #expect(counters.deliveredEventCount == 1)
        counters.sent(messageID: "$fast")
        #expect(counters.deliveredEventCount == 1)
    }

    @Test func reactionsAreMatchedByCount() {
        let counters = MatrixIdleCounters()
        let connection = counters.newConnection()
        counters.sentReaction()
        #expect(counters.deliveredEventCount == 1)
        counters.relayed(on: connection, personReaction: true)
        #expect(counters.deliveredEventCount == 1)
        // Relayed before the sender's call returned: not owed twice.
        counters.relayed(on: connection, personReaction: true)
        #expect(counters.deliveredEventCount == 2)
        counters.sentReaction()
        #expect(counters.deliveredEventCount == 2)
    }

    /// A restart: the old connection's last events (its "disconnected") can pass its relay after
    /// the new connection's count began; they are not counted, as the restarted bot never takes
    /// them. Counted, idle never came (the Matrix flow story with a restart after every move).
    @Test func anOldConnectionsLateEventsAreNotCountedAfterARestart() {
        let counters = MatrixIdleCounters()
        let first = counters.newConnection()
        counters.relayed(on: first)
        counters.sent(messageID: "$before")
        #expect(counters.deliveredEventCount == 2)
        let second = counters.newConnection()
        // What was owed stays owed; the relay count starts over.
        #expect(counters.deliveredEventCount == 1)
        counters.relayed(on: first)
        counters.relayed(on: first, personMessage: "$before")
        #expect(counters.deliveredEventCount == 1)
        counters.relayed(on: second, personMessage: "$before")
        #expect(counters.deliveredEventCount == 1)
        counters.relayed(on: second)
        #expect(counters.deliveredEventCount == 2)
    }
}
