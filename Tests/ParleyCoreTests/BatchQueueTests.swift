import ParleyCore
import Synchronization
import Testing
import ParleyTesting

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

    @Test func aPushLeavingTheWakeIsTakenAtTheWakeOrTheNextTake() async throws {
        let queue = BatchQueue<Int>()
        let consumer = Task { await queue.next() }
        // Whether the consumer already waits or not: the element is buffered, and either the
        // wake hands it over or the consumer finds it when it looks.
        let (accepted, mustWake) = queue.pushLeavingWake(0)
        #expect(accepted)
        if mustWake { queue.wake() }
        #expect(await consumer.value == [0])
        // Nobody waits: nothing to wake, and a wake changes nothing.
        #expect(queue.pushLeavingWake(7) == (true, false))
        queue.wake()
        #expect(await queue.next() == [7])
        queue.finish()
        #expect(queue.pushLeavingWake(8) == (false, false))
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

    @Test func aRelayPullsItsSourceNoFasterThanTheConsumerTakes() async throws {
        // A source that makes each element when pulled: how far the relay went is `pulled`.
        let pulled = Mutex(0)
        let source = AsyncStream<Int>(unfolding: {
            pulled.withLock { count in
                guard count < 5000 else { return nil }
                count += 1
                return count
            }
        })
        let queue = BatchQueue.relaying(elements: source, holding: 100)
        try await withTimeout { while pulled.withLock({ $0 }) < 100 { try Task.checkCancellation(); await Task.yield() } }
        // The consumer has taken nothing: the relay waits at the bound (one more pulled at most).
        for _ in 0..<1000 { await Task.yield() }
        #expect(pulled.withLock { $0 } <= 101)
        var taken: [Int] = []
        // Bounded: the source ends after 5,000 elements, and the relay then finishes the queue.
        while let batch = await queue.next() {
            #expect(batch.count <= 101)
            taken += batch
        }
        #expect(taken == Array(1...5000))
    }
}
