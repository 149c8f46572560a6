import Foundation
import YAMLCoding
import ParleyCore
import ParleyBots
import ParleyCLI

// MARK: - Bot files: full decoding + validation, and `parley check` over a folder

/// `parley-bench yaml-decode`: 1,000 generated bot files of 40 commands each; reports decoding +
/// validation throughput against raw libyaml events, and the time of `parley check` over them.
func benchYAMLDecode() async throws {
    let texts = (0..<1000).map(BenchBotCorpus.botFile)
    let bytes = texts.reduce(0) { $0 + $1.utf8.count }
    // The figures must measure the success path: every file decodes and validates cleanly.
    let errors = BenchBotCorpus.decodeAndValidate(texts)
    guard errors == 0 else { throw BenchFailure("generated bot files have \(errors) validation errors") }
    print(String(format: "yaml-decode corpus: 1000 bot files, 40 commands each, %.2f MB", Double(bytes) / 1_000_000))

    _ = benchYAMLRaw(texts: texts)  // warm-up
    let raw = benchYAMLRaw(texts: texts)
    let start = ContinuousClock.now
    _ = BenchBotCorpus.decodeAndValidate(texts)
    let decode = (ContinuousClock.now - start).timeInterval
    let rawRate = Double(raw.bytes) / 1_000_000 / max(raw.seconds, 1e-9)
    let decodeRate = Double(bytes) / 1_000_000 / max(decode, 1e-9)
    print(String(format: "yaml-decode raw libyaml events: %.1f MB/s", rawRate))
    print(String(format: "yaml-decode decode+validate bots: %.1f MB/s (%.0f%% of raw libyaml events)", decodeRate, 100 * decodeRate / rawRate))

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("bots"), withIntermediateDirectories: true)
    try "transport:\n  kind: local\nbots: bots\n".write(to: folder.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
    for (index, text) in texts.enumerated() {
        try text.write(to: folder.appendingPathComponent("bots/bot\(index).yaml"), atomically: false, encoding: .utf8)
    }
    let output = CapturedOutput()
    let context = CommandContext(output: output, environment: [:], currentDirectory: folder.path)
    let checkStart = ContinuousClock.now
    let status = await ParleyCommand.main(["check"], context: context)
    let check = (ContinuousClock.now - checkStart).timeInterval
    guard status == 0 else { throw BenchFailure("check failed: " + output.standardError.prefix(2000)) }
    print(String(format: "yaml-decode parley check over 1000 files: %.3f s (target < 1.5 s; %@)", check,
                 output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
}

/// A benchmark that could not measure what it should.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Generated bot files that exercise every part of the schema and validate cleanly.
enum BenchBotCorpus {
    static func decodeAndValidate(_ texts: [String]) -> Int {
        let decoder = YAMLDecoder(environment: [:])
        var errors = 0
        for (index, text) in texts.enumerated() {
            let file = "bots/bot\(index).yaml"
            do {
                let bot = try decoder.decode(BotDefinition.self, from: text, file: file)
                errors += BotValidator.validate(bot, source: SourceFile(name: file, text: text)).count
            } catch {
                errors += error.errors.count
            }
        }
        return errors
    }

    static func botFile(_ index: Int) -> String {
        var text = """
            # Generated bot \(index)
            id: bot\(index)
            name: "Bot \(index)"
            prefix: "/"
            allow:
              users: [alice, bob, carol]
              channels: ["group:helpdesk", "user:dave"]
            greeting:
              - send: { card: greeting, text: "Hi {{user.name}}, I am {{bot.name}}.", summary: Welcome }
            commands:

            """
        for command in 0..<40 {
            switch command % 4 {
            case 0:
                text += """
                  cmd\(command):
                    description: "Command number \(command) of bot \(index)"
                    aliases: [alias\(command)]
                    reply: "Hello {{user.name}}, this is command \(command). {{help}}"

                """
            case 1:
                text += """
                  cmd\(command):
                    description: Send a business card
                    args: [user]
                    send: { card: vcard, user: "{{args.user}}" }

                """
            case 2:
                text += """
                  cmd\(command):
                    description: Several actions
                    args: [order, note]
                    do:
                      - react: "👀"
                      - reply: "Order {{args.order}}: {{args.note}}"
                        quote: true
                      - send: { card: ticket, id: "{{args.order}}", status: open }
                      - goto: refund.order

                """
            default:
                text += """
                  cmd\(command):
                    description: A link
                    send: { card: link, text: "Docs \(command)", url: "https://example.com/\(command)" }

                """
            }
        }
        text += """
            triggers:
              - match: "(?i)\\\\bthanks?\\\\b"
                react: "❤️"
              - match: "order (?<number>[0-9]{6})"
                reply: "Looking up {{match.number}}"
              - contains: "opening hours"
                reply: "We are open 9–18."
            flows:
              refund:
                order:
                  reply: "What is your order number?"
                  ask:
                    save: order_id
                    match: "^[0-9]{6}$"
                    retry: "Please send the 6-digit number."
                    timeout: 10m
                    on_timeout: [ { reply: "Closing." }, { goto: end } ]
                  next: confirm
                confirm:
                  send: { card: ticket, id: "{{vars.order_id}}", status: "refund requested" }
                  handoff: { queue: agents, note: "Refund {{vars.order_id}}" }
                  next: end
            fallback:
              - reply: "Sorry, try /cmd0."
            schedules:
              - name: morning
                cron: "0 9 * * MON-FRI"
                timezone: Europe/Berlin
                broadcast:
                  to: ["group:announcements", "user:alice"]
                  send: { text: "Good morning {{recipient.name}}" }
                  rate: 20/s
            cards:
              ticket:
                type: 1001
                fields: [id, status]
                fallback: "Ticket {{id}}: {{status}}"

            """
        return text
    }
}
