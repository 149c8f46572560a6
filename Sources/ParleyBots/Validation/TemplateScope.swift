import YAMLCoding
/// Which template variables a place in a bot file may use.
struct TemplateScope: Sendable {
    /// Names for messages: "command 'card'", "trigger 2", "flow step 'refund.order'".
    var place: Place
    /// `{{args.NAME}}`: the command's args as written (not mapped to names: an array per
    /// command for the few that have an error); nil outside commands.
    var args: [Located<String>]? = nil
    /// `{{match.NAME}}`: the trigger's named groups; nil outside triggers.
    var matchGroups: [String]? = nil
    /// `{{recipient.id}}` / `{{recipient.name}}`: only inside broadcasts.
    var recipient = false
    /// `{{user.*}}` and `{{message.text}}`: only where a user's message is being handled.
    var conversation = true
    /// The flow a step belongs to, for bare `goto: STEP`.
    var flow: String? = nil
    /// `{{queue.opens}}`: only in a queue's `closed` actions.
    var queueOpens = false
    /// `{{unsubscribe}}`: only in a broadcast to an audience.
    var unsubscribe = false

    /// The variables allowed here, for messages.
    func known(vars: Set<String>) -> [String] {
        var names = ["bot.id", "bot.name", "help"]
        if conversation { names += ["user.id", "user.name", "message.text"] }
        if recipient { names += ["recipient.id", "recipient.name"] }
        if queueOpens { names.append("queue.opens") }
        if unsubscribe { names.append("unsubscribe") }
        names += (args ?? []).map { "args.\($0.value)" }
        names += (matchGroups ?? []).map { "match.\($0)" }
        names += vars.sorted().map { "vars.\($0)" }
        return names
    }

    /// Why `path` is not allowed here, or nil when it is.
    func problem(with path: String, vars: Set<String>) -> String? {
        if allowsPlainly(path, vars: vars) { return nil }
        let (root, leaf) = Self.split(path)
        switch (root, leaf) {
        case ("bot", "id"?), ("bot", "name"?), ("help", nil):
            return nil
        case ("user", "id"?), ("user", "name"?), ("message", "text"?):
            return conversation ? nil : "'{{\(path)}}' has no user or message here (\(place) runs on a schedule)"
        case ("queue", "opens"?):
            return queueOpens ? nil : "'{{\(path)}}' is only known in a hand-off queue's 'closed' actions"
        case ("unsubscribe", nil):
            return unsubscribe ? nil : "'{{unsubscribe}}' is only known in a broadcast to an 'audience' (it names the opt-out word)"
        case ("recipient", "id"?), ("recipient", "name"?):
            return recipient ? nil : "'{{\(path)}}' is only known inside a broadcast's 'send'"
        case ("args", let name?):
            guard let args else { return "'{{\(path)}}' is only known in a command with args" }
            return args.contains(where: { $0.value == name }) ? nil
                : "unknown template variable '{{\(path)}}': \(place) has " + (args.isEmpty ? "no args" : "args " + args.map(\.value).joined(separator: ", "))
        case ("match", let name?):
            guard let matchGroups else { return "'{{\(path)}}' is only known in a trigger with a 'match' regex" }
            return matchGroups.contains(name) ? nil
                : "unknown template variable '{{\(path)}}': the regex of \(place) has " + (matchGroups.isEmpty ? "no named groups" : "named groups " + matchGroups.joined(separator: ", "))
        case ("vars", let name?):
            return vars.contains(name) ? nil
                : "unknown template variable '{{\(path)}}': no 'save', 'set' or named group in this bot sets '\(name)'"
        default:
            return "unknown template variable '{{\(path)}}': expected one of " + known(vars: vars).joined(separator: ", ")
        }
    }

    /// True for a path the switch of `problem` allows (never for one it refuses), decided on
    /// the path's bytes: most placeholders are allowed, and splitting each into strings and
    /// comparing them one case after another cost more than the rest of the check. False only
    /// means "ask `problem`".
    private func allowsPlainly(_ path: String, vars: Set<String>) -> Bool {
        path.utf8.withContiguousStorageIfAvailable { bytes in
            // Byte by byte: `elementsEqual` cost more than the rest of the check.
            func same(_ one: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
                guard one.count == other.count else { return false }
                for index in 0..<one.count where one[index] != other[index] { return false }
                return true
            }
            func isPath(_ name: StaticString) -> Bool { name.withUTF8Buffer { same($0, bytes) } }
            /// The non-empty name after `root` and its dot (as `split` gives the leaf).
            func name(after root: StaticString) -> UnsafeBufferPointer<UInt8>? {
                root.withUTF8Buffer { prefix in
                    guard bytes.count > prefix.count + 1, bytes[prefix.count] == UInt8(ascii: "."),
                          same(prefix, UnsafeBufferPointer(rebasing: bytes[..<prefix.count])) else { return nil }
                    return UnsafeBufferPointer(rebasing: bytes[(prefix.count + 1)...])
                }
            }
            func isText(_ text: String, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
                text.utf8.count == name.count && (text.utf8.withContiguousStorageIfAvailable { same($0, name) } ?? text.utf8.elementsEqual(name))
            }
            switch bytes.first {
            case UInt8(ascii: "u"): return conversation && (isPath("user.name") || isPath("user.id"))
            case UInt8(ascii: "m"):
                if let group = name(after: "match") { return matchGroups?.contains { isText($0, group) } ?? false }
                return conversation && isPath("message.text")
            case UInt8(ascii: "b"): return isPath("bot.name") || isPath("bot.id")
            case UInt8(ascii: "h"): return isPath("help")
            case UInt8(ascii: "r"): return recipient && (isPath("recipient.name") || isPath("recipient.id"))
            case UInt8(ascii: "a"): return name(after: "args").map { arg in args?.contains { isText($0.value, arg) } ?? false } ?? false
            case UInt8(ascii: "v"): return name(after: "vars").map { vars.contains(String(decoding: $0, as: UTF8.self)) } ?? false
            default: return false
            }
        } ?? false
    }

    /// The path's first name and the rest after its first dot (nil when there is none), as
    /// `split(separator: ".", maxSplits: 1)` gives them (leading dots skipped, an empty rest is
    /// none), without an array per placeholder. Names are short: small strings, no allocation.
    private static func split(_ path: String) -> (root: String, leaf: String?) {
        var path = path
        path.makeContiguousUTF8()
        let parts = path.utf8.withContiguousStorageIfAvailable { bytes -> (String, String?) in
            let dot = UInt8(ascii: ".")
            guard let start = bytes.firstIndex(where: { $0 != dot }) else { return ("", nil) }
            guard let split = bytes[start...].firstIndex(of: dot) else { return (String(decoding: bytes[start...], as: UTF8.self), nil) }
            let rest = bytes[(split + 1)...]
            return (String(decoding: bytes[start..<split], as: UTF8.self), rest.isEmpty ? nil : String(decoding: rest, as: UTF8.self))
        }
        return parts ?? (path, nil)
    }
}

extension TemplateScope {
    /// A scope's place, spelled out only when a message needs it (every command has a scope;
    /// few have an error).
    enum Place: Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// Spelled out already ("greeting", "trigger 2").
        case text(String)
        /// `command 'NAME'`.
        case command(String)

        init(stringLiteral value: String) { self = .text(value) }

        var description: String {
            switch self {
            case .text(let text): text
            case .command(let name): "command '\(name)'"
            }
        }
    }
}
