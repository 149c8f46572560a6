import ParleyCore

/// What a broadcast sends: an encoded content (`{"type": …, …}`) whose string values may
/// hold `{{recipient.id}}`, `{{recipient.name}}` and `{{recipient.target}}`, filled in per
/// recipient. Every other placeholder must have been rendered before (see `keepingRecipient`).
public struct BroadcastMessage: Sendable, Hashable {
    /// The payload with its recipient placeholders.
    public let payload: JSONValue
    /// True when some string uses `{{recipient.name}}` (profiles are then fetched).
    public let needsNames: Bool
    /// True when nothing depends on the recipient (one payload serves everyone).
    public let isConstant: Bool
    /// False for a literal payload, whose `{{…}}` are plain text.
    public let isTemplate: Bool
    /// Every templated string of the payload, parsed once (rendering runs per recipient).
    private let templates: [String: Template]

    /// Checks every template in `payload`. A malformed one, or a placeholder other than
    /// `recipient.*`, is `invalidMessage` naming the field.
    public init(payload: JSONValue) throws(BroadcastError) {
        var paths: [String] = []
        var templates: [String: Template] = [:]
        try Self.collect(payload, field: "", into: &paths, templates: &templates)
        self.payload = payload
        self.templates = templates
        self.needsNames = paths.contains("recipient.name")
        self.isConstant = paths.isEmpty
        self.isTemplate = true
    }

    /// A payload sent as it is: `{{…}}` in it is text (for contents rendered already).
    public init(literal payload: JSONValue) {
        self.payload = payload
        self.needsNames = false
        self.isConstant = true
        self.isTemplate = false
        self.templates = [:]
    }

    /// A text message.
    public init(text: String) throws(BroadcastError) {
        try self.init(payload: TextContent(text).encoded())
    }

    /// The payload for one recipient.
    public func render(for channel: Channel, name: String?) -> JSONValue {
        guard !isConstant else { return payload }
        return Self.render(payload, templates) { path in
            switch path {
            case "recipient.id": return channel.id
            case "recipient.target": return channel.target
            case "recipient.name": return name ?? channel.id
            default: return nil
            }
        }
    }

    /// A lookup for rendering a `send:` in the context of whoever starts the broadcast:
    /// `recipient.*` placeholders are written back unchanged (they are filled per recipient
    /// later), everything else comes from `base`.
    public static func keepingRecipient(_ base: @escaping (String) -> String?) -> (String) -> String? {
        { path in Self.recipientPaths.contains(path) ? "{{\(path)}}" : base(path) }
    }

    static let recipientPaths: Set<String> = ["recipient.id", "recipient.name", "recipient.target"]

    private static func collect(_ value: JSONValue, field: String, into paths: inout [String],
                                templates: inout [String: Template]) throws(BroadcastError) {
        switch value {
        case .string(let text) where text.contains("{{"):
            let template: Template
            do { template = try Template(text) } catch {
                throw BroadcastError(.invalidMessage, "field '\(field)': \(error.message) at offset \(error.offset)")
            }
            for path in template.variables {
                guard recipientPaths.contains(path) else {
                    throw BroadcastError(.invalidMessage, "field '\(field)': unknown placeholder '{{\(path)}}' in a broadcast; use recipient.id, recipient.name or recipient.target")
                }
                paths.append(path)
            }
            templates[text] = template
        case .array(let values):
            for (index, element) in values.enumerated() {
                try collect(element, field: "\(field)[\(index)]", into: &paths, templates: &templates)
            }
        case .object(let object):
            for (key, element) in object {
                try collect(element, field: field.isEmpty ? key : "\(field).\(key)", into: &paths, templates: &templates)
            }
        default:
            break
        }
    }

    private static func render(_ value: JSONValue, _ templates: [String: Template], _ lookup: (String) -> String?) -> JSONValue {
        switch value {
        case .string(let text):
            // Every string with a placeholder was parsed in `init`; the others stay as they are.
            guard let template = templates[text] else { return value }
            return .string(template.render(lookup))
        case .array(let values): return .array(values.map { render($0, templates, lookup) })
        case .object(let object): return .object(object.mapValues { render($0, templates, lookup) })
        default: return value
        }
    }
}
