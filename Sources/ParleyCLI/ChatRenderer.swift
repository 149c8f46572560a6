import ParleyBots
import ParleyCore

/// Turns messages into console lines: text as it is, cards drawn readably (a boxed vCard,
/// a link with its URL, a greeting), quotes and reactions spelled out. Whatever came from
/// users, profiles or bots passes `VisibleText`: no escape sequence reaches the terminal and
/// no name or line break forges a line.
enum ChatRenderer {
    /// Lines for a message from `name`; `quoted` is the text of the message it replies to.
    static func render(_ message: Message, from name: String, quoted: String?) -> [String] {
        var head = "\(VisibleText.line(name)):"
        if let quoted { head += " (replying to “\(VisibleText.line(shorten(quoted)))”)" }
        let body = lines(for: message.content)
        if body.count == 1 { return ["\(head) \(body[0])"] }
        return [head] + body.map { "  " + $0 }
    }

    /// `support reacted ❤️`.
    static func reaction(_ emoji: String, by name: String) -> String { VisibleText.line("\(name) reacted \(emoji)") }

    /// The content's lines, each escaped.
    static func lines(for content: any MessageContent) -> [String] {
        rawLines(for: content).map(VisibleText.line)
    }

    /// The content's lines, split at line breaks (escaping the lines again changes nothing).
    private static func rawLines(for content: any MessageContent) -> [String] {
        switch content {
        case let text as TextContent:
            return VisibleText.lines(text.text)
        case let greeting as GreetingContent:
            return ["👋 " + greeting.text]
        case let link as LinkContent:
            var lines = ["🔗 \(link.text) <\(link.url)>"]
            if let description = link.linkDescription { lines.append("   " + description) }
            return lines
        case let image as ImageContent:
            let size = (image.width.map { "\($0)" } ?? "?") + "×" + (image.height.map { "\($0)" } ?? "?")
            return ["🖼 \(image.url)" + (image.width == nil && image.height == nil ? "" : " (\(size))")]
        case let card as VCardContent:
            var rows = [card.name]
            for (label, value) in [("title", card.title), ("org", card.org), ("phone", card.phone), ("email", card.email), ("id", card.user)] {
                if let value { rows.append("\(label): \(value)") }
            }
            return box(rows.map(VisibleText.line))  // escaped before the box is sized
        case let ticket as TicketContent:
            return ticket.fallback.split(separator: "\n").map(String.init)
        default:
            let name = content.cardName.map { "[\($0)] " } ?? ""
            return VisibleText.lines(name + content.fallback)
        }
    }

    /// Draws `rows` in a box sized to the widest row.
    static func box(_ rows: [String]) -> [String] {
        let width = rows.map(\.count).max() ?? 0
        let edge = String(repeating: "─", count: width + 2)
        return ["┌" + edge + "┐"] + rows.map { "│ " + $0 + String(repeating: " ", count: width - $0.count) + " │" } + ["└" + edge + "┘"]
    }

    private static func shorten(_ text: String) -> String {
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        return line.count > 40 ? String(line.prefix(40)) + "…" : line
    }
}
