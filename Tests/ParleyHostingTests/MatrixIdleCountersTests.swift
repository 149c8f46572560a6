import Testing
@testable import ParleyHosting

/// A Matrix flow test's idle waits for the very messages the people sent, by id: an event the
/// bot's connection relays that no send accounts for cannot stand in for one still on its way.
@Suite struct MatrixIdleCountersTests {
    @Test func aSentMessageIsAwaitedUntilItsOwnEventIsRelayed() {
        let counters = MatrixIdleCounters()
        counters.relayed()
        counters.relayed()
        // A person's message the test did not send now (a repeat, say) is relayed and counted.
        counters.relayed(personMessage: "$repeat")
        #expect(counters.deliveredEventCount == 3)
        counters.sent(messageID: "$first")
        // A count of sends (2 other events + 1 sent) would say 3, which the 3 relayed already
        // reach: idle one message early. The id keeps it owed.
        #expect(counters.deliveredEventCount == 4)
        counters.relayed(personMessage: "$first")
        #expect(counters.deliveredEventCount == 4)
    }

    @Test func aMessageRelayedBeforeItsSendReturnedIsNotAwaitedAgain() {
        let counters = MatrixIdleCounters()
        counters.relayed(personMessage: "$fast")
        #expect(counters.deliveredEventCount == 1)
        counters.sent(messageID: "$fast")
        #expect(counters.deliveredEventCount == 1)
    }

    @Test func reactionsAreMatchedByCount() {
        let counters = MatrixIdleCounters()
        counters.sentReaction()
        #expect(counters.deliveredEventCount == 1)
        counters.relayed(personReaction: true)
        #expect(counters.deliveredEventCount == 1)
        // Relayed before the sender's call returned: not owed twice.
        counters.relayed(personReaction: true)
        #expect(counters.deliveredEventCount == 2)
        counters.sentReaction()
        #expect(counters.deliveredEventCount == 2)
    }
}
