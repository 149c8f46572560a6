import ParleyCore
import Testing

@Suite struct BoundedRingTests {
    @Test func keepsTheNewestAndHandsBackTheOldest() {
        var ring = BoundedRing<Int>()
        #expect(ring.append(1, capacity: 3) == nil)
        #expect(ring.append(2, capacity: 3) == nil)
        #expect(ring.append(3, capacity: 3) == nil)
        #expect(ring.oldestFirst == [1, 2, 3])
        #expect(ring.append(4, capacity: 3) == 1)
        #expect(ring.append(5, capacity: 3) == 2)
        #expect(ring.count == 3)
        #expect(ring.oldestFirst == [3, 4, 5])
        #expect(ring.contains { $0 == 4 })
        #expect(!ring.contains { $0 == 2 })
        // All the way round: the order holds at every position of the oldest.
        for value in 6...10 { _ = ring.append(value, capacity: 3) }
        #expect(ring.oldestFirst == [8, 9, 10])
    }

    @Test func aCapacityOfZeroKeepsNothing() {
        var ring = BoundedRing<String>()
        #expect(ring.append("a", capacity: 0) == "a")
        #expect(ring.count == 0)
        #expect(ring.oldestFirst.isEmpty)
    }
}
