import Foundation
import ParleyCore
import YAMLCoding

/// An audience of a bot file made ready to run: its words looked up fast, its actions compiled.
struct CompiledAudience: Sendable {
    var name: String
    var description: String?
    /// Subscribe commands (after the prefix), as written.
    var subscribe: [String]
    /// Unsubscribe words, lowercased (a message is compared in lower case).
    var unsubscribe: [String]
    var onSubscribe: [CompiledAction]
    var onUnsubscribe: [CompiledAction]
    /// The `import` file relative to the bot file's folder, as users see it.
    var importFile: String?

    /// The one-line hint `{{unsubscribe}}` renders: the first opt-out word, as people type it.
    var unsubscribeHint: String {
        "Send \((unsubscribe.first ?? "stop").uppercased()) to unsubscribe."
    }

    /// The audiences of `definition`, in file order.
    static func compile(_ definition: BotDefinition, file: String, compiler: inout ActionCompiler) throws(BotError) -> [CompiledAudience] {
        var compiled: [CompiledAudience] = []
        for entry in definition.audiences.entries {
            let audience = entry.value
            compiled.append(CompiledAudience(
                name: entry.name, description: audience.description?.value, subscribe: audience.subscribe.map(\.value),
                unsubscribe: audience.unsubscribe.map { $0.value.lowercased() },
                onSubscribe: try compiler.actions(audience.onSubscribe?.value.items ?? [], flow: nil),
                onUnsubscribe: try compiler.actions(audience.onUnsubscribe?.value.items ?? [], flow: nil),
                importFile: audience.importFile.map { TextFile.join(TextFile.folder(of: file), $0.value) }))
        }
        return compiled
    }
}

extension CompiledBot {
    /// The audiences `text` opts out of: it is one of their unsubscribe words, with or without
    /// the prefix, in any case, spaces around it ignored.
    func unsubscribing(_ text: String) -> [CompiledAudience] {
        guard !audiences.isEmpty else { return [] }
        var word = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if word.hasPrefix(prefix) { word = word.dropFirst(prefix.count) }
        let lowered = word.lowercased()
        return audiences.filter { $0.unsubscribe.contains(lowered) }
    }

    /// The audience whose subscribe command `name` (the word after the prefix) is.
    func subscribing(_ name: String) -> CompiledAudience? {
        audiences.first { $0.subscribe.contains(name) }
    }

    /// The audience `name`.
    func audience(_ name: String) -> CompiledAudience? {
        audiences.first { $0.name == name }
    }

    /// The bot's audiences as the admin API lists them: name and description, in file order.
    public var audienceOutline: [(name: String, description: String?)] {
        audiences.map { ($0.name, $0.description) }
    }
}
