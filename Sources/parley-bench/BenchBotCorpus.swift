import YAMLCoding
import ParleyBots

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
