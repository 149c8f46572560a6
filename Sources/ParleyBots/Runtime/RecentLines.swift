import ParleyCore

/// A conversation's last few lines (`name: text`) for hand-off tickets. Every message adds
/// one and only a hand-off reads them, so a line keeps its two parts as given and is joined
/// (and shortened) only when read: no string built per message, and a ring instead of
/// shifting the list once it is full.
struct RecentLines: Sendable {
    private struct Line: Sendable {
        var name: String
        var text: String
    }

    private var lines = BoundedRing<Line>()

    /// Adds a line, forgetting the oldest beyond `limit` (a runtime's constant; 0 keeps nothing).
    mutating func append(name: String, text: String, limit: Int) {
        lines.append(Line(name: name, text: text), capacity: limit)
    }

    /// The lines oldest first, each `name: text` cut to 200 characters (then "…").
    var joined: [String] {
        lines.oldestFirst.map { line in
            let full = "\(line.name): \(line.text)"
            // 200 UTF-8 bytes are at most 200 characters: the common short line skips counting them.
            return full.utf8.count <= 200 || full.count <= 200 ? full : String(full.prefix(200)) + "…"
        }
    }
}
