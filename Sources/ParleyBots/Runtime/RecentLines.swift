/// A conversation's last few lines (`name: text`) for hand-off tickets. Every message adds
/// one and only a hand-off reads them, so a line keeps its two parts as given and is joined
/// (and shortened) only when read: no string built per message, and a ring instead of
/// shifting the list once it is full.
struct RecentLines: Sendable {
    private var names: [String] = []
    private var texts: [String] = []
    /// Where the next line goes once the ring is full (the oldest line).
    private var next = 0

    /// Adds a line, forgetting the oldest beyond `limit` (a runtime's constant; 0 keeps nothing).
    mutating func append(name: String, text: String, limit: Int) {
        guard limit > 0 else { return }
        guard names.count >= limit else {
            names.append(name)
            texts.append(text)
            return
        }
        names[next] = name
        texts[next] = text
        next = (next + 1) % names.count
    }

    /// The lines oldest first, each `name: text` cut to 200 characters (then "…").
    var joined: [String] {
        lines.map { line in
            let full = "\(line.name): \(line.text)"
            // 200 UTF-8 bytes are at most 200 characters: the common short line skips counting them.
            return full.utf8.count <= 200 || full.count <= 200 ? full : String(full.prefix(200)) + "…"
        }
    }

    private var lines: [(name: String, text: String)] {
        (0..<names.count).map { offset in
            let index = (next + offset) % names.count
            return (names[index], texts[index])
        }
    }
}
