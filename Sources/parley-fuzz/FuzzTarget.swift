import Foundation
import ParleyBots
import ParleyCore
import ParleyMatrix
import YAMLCoding

/// One decoder under test. `run` returns whether the input was accepted (it then joins the pool
/// the mutation loop draws from); an error is a fine answer, only a crash or a hang is a finding.
struct FuzzTarget: Sendable {
    var name: String
    var run: @Sendable (Data) -> Bool

    static let all: [FuzzTarget] = [yaml, matrix, payload]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    // MARK: - yaml

    /// A bot file (decoded and validated, as `parley check` does) and a config file.
    static let yaml = FuzzTarget(name: "yaml") { data in
        let text = String(decoding: data, as: UTF8.self)
        let decoder = YAMLDecoder(environment: ["HOME": "/home/fuzz", "TOKEN": "secret"])
        let source = SourceFile(name: "bots/fuzz.yaml", text: text)
        var accepted = false
        do {
            let bot = try decoder.decode(BotDefinition.self, from: text, file: source.name)
            let errors = BotValidator.validate(bot, source: source)
            _ = errors.sortedByPosition().map(\.description)
            accepted = errors.isEmpty
        } catch {
            _ = "\(error)"
            if let bot = decoder.decodeIgnoringUnknownKeys(BotDefinition.self, from: text, file: source.name) {
                _ = BotValidator.validate(bot, source: source).map(\.description)
            }
        }
        do {
            let config = try decoder.decode(HostConfig.self, from: text, file: "config.yaml")
            _ = HostConfigValidator.validate(config, source: SourceFile(name: "config.yaml", text: text)).map(\.description)
        } catch {
            _ = "\(error)"
        }
        return accepted
    }

    // MARK: - matrix

    /// What a homeserver sends: a `/sync` answer, a `/messages` page or one event, then the
    /// payloads that come out as the bot engine decodes them.
    static let matrix = FuzzTarget(name: "matrix") { data in
        let payloads = MatrixFuzzing.decode(data)
        for payload in payloads { decodePayload(payload) }
        return !payloads.isEmpty
    }

    // MARK: - payload

    /// A payload (WIRE.md) through the registry of the built-ins and a YAML card, and the
    /// same bytes as vCard text.
    static let payload = FuzzTarget(name: "payload") { data in
        _ = try? VCardContent(vCard: String(decoding: data, as: UTF8.self))
        guard let json = try? JSONValue.parse(data) else { return false }
        return decodePayload(json)
    }

    static let registry: ContentRegistry = {
        var registry = ContentRegistry.standard
        if let fallback = try? Template("Order {{order_id}}: {{status}}"),
           let order = try? CardDefinition(name: "order", typeCode: 1001, fields: ["order_id", "status"], fallback: fallback) {
            try? registry.register(card: order)
        }
        return registry
    }()

    /// Decodes a payload and uses everything a receiver uses of it; true when it decoded.
    @discardableResult
    static func decodePayload(_ json: JSONValue) -> Bool {
        _ = json.jsonData()
        guard let content = try? registry.decode(json) else { return false }
        _ = (content.fallback, content.digest, content.summary, content.cardName)
        let encoded = content.encoded()
        _ = try? registry.decode(encoded)
        if let vcard = content as? VCardContent {
            _ = try? VCardContent(vCard: vcard.vCardText())
        }
        return true
    }
}
