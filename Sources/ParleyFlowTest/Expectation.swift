import YAMLCoding
import ParleyBots

/// `expect:` — what the next output of a channel must be.
public struct Expectation: Decodable, Sendable {
    /// Exact text.
    public var text: Located<String>?
    /// Substring of the text.
    public var contains: Located<String>?
    /// Regex the text must match.
    public var matches: Located<String>?
    /// Card name.
    public var card: Located<String>?
    /// Card fields that must have these values.
    public var fields: OrderedMap<Located<String>>?
    /// `last`: the message quotes the user's last message.
    public var quote: Located<String>?
    /// A reaction (emoji) rather than a message.
    public var reaction: Located<String>?
    /// The channel (`user:ID` / `group:ID`); default: the direct conversation.
    public var to: Located<String>?
    /// `true`: nothing is left in the channel once the bot is idle.
    public var none: Located<Bool>?
    /// Where the expectation starts.
    public var mark: Mark

    enum CodingKeys: String, CodingKey { case text, contains, matches, card, fields, quote, reaction, to, none }

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decodeIfPresent(Located<String>.self, forKey: .text)
        contains = try container.decodeIfPresent(Located<String>.self, forKey: .contains)
        matches = try container.decodeIfPresent(Located<String>.self, forKey: .matches)
        card = try container.decodeIfPresent(Located<String>.self, forKey: .card)
        fields = try container.decodeIfPresent(OrderedMap<Located<String>>.self, forKey: .fields)
        quote = try container.decodeIfPresent(Located<String>.self, forKey: .quote)
        reaction = try container.decodeIfPresent(Located<String>.self, forKey: .reaction)
        to = try container.decodeIfPresent(Located<String>.self, forKey: .to)
        none = try container.decodeIfPresent(Located<Bool>.self, forKey: .none)
    }
}
