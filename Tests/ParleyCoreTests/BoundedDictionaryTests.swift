import ParleyCore
import Testing

@Suite struct BoundedDictionaryTests {
    @Test func keepsTheNewestKeysUpToItsCapacity() {
        var dictionary = BoundedDictionary<String, Int>(capacity: 3)
        for (index, key) in ["a", "b", "c", "d", "e"].enumerated() {
            let inserted = dictionary.set(index, for: key)
            #expect(inserted)
        }
        #expect(dictionary.count == 3)
        #expect(["a", "b", "c", "d", "e"].map { dictionary[$0] } == [nil, nil, 2, 3, 4])
    }

    @Test func replacingAValueKeepsItsPlaceAndCountsOnce() {
        var dictionary = BoundedDictionary<String, Int>(capacity: 2)
        dictionary.set(1, for: "a")
        let insertedAgain = dictionary.set(2, for: "a")
        #expect(!insertedAgain)
        dictionary.set(3, for: "b")
        #expect(dictionary.count == 2)
        #expect(dictionary["a"] == 2)
        // "a" was inserted first: a third key pushes it out.
        dictionary.set(4, for: "c")
        #expect(dictionary["a"] == nil && dictionary["b"] == 3 && dictionary["c"] == 4)
    }

    @Test func aKeyRemovedAndSetAgainNeverLetsTheCountPassTheCapacity() {
        var dictionary = BoundedDictionary<Int, Int>(capacity: 4)
        for round in 0..<50 {
            dictionary.set(round, for: round % 6)
            if round % 3 == 0 { dictionary.removeValue(forKey: round % 6) }
            #expect(dictionary.count <= 4)
        }
        dictionary.removeAll()
        #expect(dictionary.count == 0)
    }
}
