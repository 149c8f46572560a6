/// Generated bot-like YAML files and a generic Decodable schema for them (not ParleyBots' own).
enum BenchYAMLCorpus {
    struct Action: Decodable {
        var reply: String?
        var react: String?
        var send: [String: String]?
        var quote: Bool?
        var goto: String?
    }

    struct Command: Decodable {
        var description: String?
        var aliases: [String]?
        var args: [String]?
        var reply: String?
        var send: [String: String]?
        var `do`: [Action]?
    }

    struct Trigger: Decodable {
        var match: String?
        var contains: String?
        var reply: String?
        var react: String?
    }

    struct Schedule: Decodable {
        struct Broadcast: Decodable {
            var to: [String]
            var send: [String: String]
            var rate: String?
        }
        var name: String
        var cron: String
        var timezone: String?
        var broadcast: Broadcast
    }

    struct Allow: Decodable {
        var users: [String]?
        var channels: [String]?
    }

    struct Bot: Decodable {
        var id: String
        var name: String
        var avatar: String?
        var prefix: String?
        var password: String?
        var priority: Int?
        var allow: Allow?
        var commands: [String: Command]
        var triggers: [Trigger]?
        var fallback: [Action]?
        var schedules: [Schedule]?
    }

    /// One bot file of about 4 KB with 12 commands, triggers, a schedule and an alias.
    static func botFile(_ number: Int) -> String {
        var text = """
            id: bot\(number)
            name: "Support \(number) 🤖"
            avatar: https://example.com/\(number).png
            prefix: "/"
            password: ${SUPPORT_PASSWORD}
            priority: \(number % 10)
            allow:
              users: [alice, bob, carol]
              channels: ["group:helpdesk", "group:sales"]
            commands:

            """
        for command in 0..<12 {
            text += """
                  command\(command):
                    description: Does thing number \(command) for the user, politely
                    aliases: [c\(command), cmd\(command)]
                    args: [user, note]
                    do:
                      - react: "👀"
                      - reply: |
                          Working on it, {{user.name}}.
                          This may take a moment.
                        quote: true
                      - send: { card: link, text: "Docs \(command)", url: "https://example.com/\(command)" }

                """
        }
        text += """
            triggers:
              - match: "(?i)\\\\bthanks?\\\\b"
                react: "❤️"
              - contains: opening hours
                reply: >
                  We are open 9–18,
                  Monday to Friday.
            fallback: &fallback
              - reply: "Sorry, I didn't get that. Try /help."
            schedules:
              - name: morning
                cron: "0 9 * * 1-5"
                timezone: Europe/Berlin
                broadcast:
                  to: ["group:announcements", "user:alice"]
                  send: { text: "Good morning!" }
                  rate: 20/s

            """
        return text
    }
}
