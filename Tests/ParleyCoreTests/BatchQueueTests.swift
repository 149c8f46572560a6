import ParleyCore
import Testing

@Suite struct BatchQueueTests {
    @Test func theConsumerTakesEverythingBufferedAtOnceInOrder() async throws {
        let queue = BatchQueue<Int>()
        #expect(queue.push(1))
        #expect(queue.push(contentsOf: [2, 3]))
        #expect(await queue.next() == [1, 2, 3])
        #expect(queue.push(4))
        #expect(await queue.next() == [4])
    }

    @Test func aFullQueueRefusesAllOrNothing() async throws {
        let queue = BatchQueue<Int>(limit: 3)
        #expect(queue.push(contentsOf: [1, 2]))
        #expect(!queue.push(contentsOf: [3, 4]))
        #expect(queue.push(3))
        #expect(!queue.push(4))
        #expect(await queue.next() == [1, 2, 3])
        #expect(queue.push(contentsOf: [5, 6, 7]))
    }

    @Test func finishingDeliversWhatIsBufferedThenEnds() async throws {
        let queue = BatchQueue<String>()
        queue.push("a")
        queue.finish()
        #expect(!queue.push("b"))
        #expect(queue.isFinished)
        #expect(await queue.next() == ["a"])
        #expect(await queue.next() == nil)
    }

    @Test func aWaitingConsumerIsWokenByAPushAndByFinish() async throws {
        let queue = BatchQueue<Int>()
        let stream = queue.stream()
        let consumer = Task {
            var batches: [[Int]] = []
            for await batch in stream { batches.append(batch) }
            return batches
        }
        // Whether the consumer already waits or not, it sees the same elements in order.
        queue.push(1)
        queue.push(contentsOf: [2, 3])
        queue.finish()
        let batches = await consumer.value
        #expect(batches.flatMap { $0 } == [1, 2, 3])
        #expect(batches.allSatisfy { !$0.isEmpty })
    }

    @Test func aHeldWakeHandsItsElementToTheWaitingConsumerWhenRun() async throws {
        let queue = BatchQueue<Int>()
        let consumer = Task { await queue.next() }
        // If the consumer already waits, the push hands back its wake-up (run here, after
        // the caller's own lock would be released); if not, 0 is buffered for it.
        let (taken, held) = queue.pushHoldingWake(0)
        #expect(taken)
        held?()
        #expect(await consumer.value == [0])
        // With nobody waiting, nothing is held: the element is buffered.
        let (accepted, wake) = queue.pushHoldingWake(7)
        #expect(accepted && wake == nil)
        #expect(await queue.next() == [7])
        queue.finish()
        #expect(queue.pushHoldingWake(8).accepted == false)
    }

    @Test func aRelayingQueueCarriesTheStreamThenFinishes() async throws {
        let (batches, continuation) = AsyncStream.makeStream(of: [Int].self)
        let queue = BatchQueue.relaying(batches)
        continuation.yield([1, 2])
        continuation.yield([3])
        continuation.finish()
        var taken: [Int] = []
        // Bounded: the relay finishes the queue when the stream ends.
        while let batch = await queue.next() { taken += batch }
        #expect(taken == [1, 2, 3])
    }
}
