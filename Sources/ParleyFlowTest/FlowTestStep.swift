import YAMLCoding

/// One step of a flow test, with the line it is on (failures print it).
public struct FlowTestStep: Decodable, Sendable {
    /// What the step does.
    public enum Kind: Sendable {
        /// The test user, or the user `as`, sends `text`: in a group (`in`, a group target) or
        /// else in the speaker's direct conversation with the bot.
        case send(text: Located<String>, in: Located<String>?, as: Located<String>?)
        /// The next output in a channel must match.
        case expect(Expectation)
        /// Virtual time passes; due schedules and timeouts fire.
        case advance(Located<String>)
    }

    /// The step's action; nil only for a step that failed validation.
    public var kind: Kind?
    /// Where the step starts.
    public var mark: Mark
    /// A problem found while decoding (zero or several step keys), reported by validation.
    public var issue: String?

    /// The step's line in the file.
    public var line: Int { mark.line }

    enum CodingKeys: String, CodingKey { case send, expect, advance }

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var kinds: [(String, Kind)] = []
        if let message = try container.decodeIfPresent(SendMessage.self, forKey: .send) {
            kinds.append(("send", .send(text: message.text, in: message.in, as: message.as)))
        }
        if let expectation = try container.decodeIfPresent(Expectation.self, forKey: .expect) {
            kinds.append(("expect", .expect(expectation)))
        }
        if let duration = try container.decodeIfPresent(Located<String>.self, forKey: .advance) {
            kinds.append(("advance", .advance(duration)))
        }
        kind = kinds.first?.1
        switch kinds.count {
        case 0: issue = "expected a step: send, expect or advance"
        case 1: issue = nil
        default: issue = "one step per list item, found " + kinds.map { "'\($0.0)'" }.joined(separator: " and ") + ": start a new item with '- ' for each"
        }
    }

    /// `send: TEXT` or `send: {text, in, as}`, told apart by the node's shape.
    private struct SendMessage: Decodable {
        var text: Located<String>
        var `in`: Located<String>?
        var `as`: Located<String>?

        enum CodingKeys: String, CodingKey { case text, `in`, `as` }

        init(from decoder: any Decoder) throws {
            if decoder.yamlNode?.mapping != nil {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                text = try container.decode(Located<String>.self, forKey: .text)
                `in` = try container.decodeIfPresent(Located<String>.self, forKey: .in)
                `as` = try container.decodeIfPresent(Located<String>.self, forKey: .as)
            } else if decoder.yamlNode?.sequence != nil {
                throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath,
                    debugDescription: "expected the text to send, or a mapping {text, in, as}, found a sequence"))
            } else {
                text = try Located(from: decoder)
                `in` = nil
                `as` = nil
            }
        }
    }
}
