/// "Did you mean …?" for unknown keys: the nearest candidate by edit distance.
enum KeySuggestion {
    /// The closest candidate within distance 2 (or a third of the key's length, if larger);
    /// ties go to the earlier candidate.
    static func nearest(to key: String, among candidates: [String]) -> String? {
        let typed = Array(key.unicodeScalars)
        let limit = max(2, typed.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != key {
            let distance = editDistance(typed, Array(candidate.unicodeScalars))
            // A distance as large as a whole key is a coincidence, not a typo ("id" vs "to").
            guard distance <= limit, distance < min(typed.count, candidate.unicodeScalars.count) else { continue }
            if best.map({ distance < $0.distance }) ?? true { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousRow = [Int](0...b.count)
        var beforePrevious = previousRow
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previousRow[j] + 1, row[j - 1] + 1, previousRow[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, beforePrevious[j - 2] + 1)
                }
                row[j] = value
            }
            beforePrevious = previousRow
            previousRow = row
        }
        return previousRow[b.count]
    }
}
