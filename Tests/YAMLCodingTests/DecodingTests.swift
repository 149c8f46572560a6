import Testing
import YAMLCoding

@Suite struct DecodingTests {
    struct Command: Decodable, Equatable {
        var description: String?
        var reply: String?
        var args: [String]?
    }

    struct Bot: Decodable, Equatable {
        var id: String
        var name: String
        var port: Int?
        var enabled: Bool?
        var commands: [String: Command]
    }

    let decoder = YAMLDecoder(environment: ["HOME_DIR": "/home/bot", "EMPTY": ""])

    @Test func decodesPlainStructs() throws {
        let text = """
            id: support
            name: Support 🤖
            port: 8080
            enabled: true
            commands:
              help:
                description: Show help
                reply: "{{help}}"
              card:
                args: [user]
            """
        let bot = try decoder.decode(Bot.self, from: text, file: "bot.yaml")
        #expect(bot == Bot(id: "support", name: "Support 🤖", port: 8080, enabled: true, commands: [
            "help": Command(description: "Show help", reply: "{{help}}", args: nil),
            "card": Command(description: nil, reply: nil, args: ["user"]),
        ]))
    }

    @Test func collectsEveryError() {
        let text = """
            id: 42
            name: x
            port: abc
            enabled: yes
            comands: {}
            commands:
              help:
                descripton: typo
              card:
                args: {}
            """
        #expect {
            try decoder.decode(Bot.self, from: text, file: "bot.yaml")
        } throws: { error in
            guard let errors = error as? YAMLErrors else { return false }
            #expect(errors.description == """
                bot.yaml:3:7: error: expected a number, found 'abc'
                port: abc
                      ^
                bot.yaml:4:10: error: expected true or false, found 'yes'
                enabled: yes
                         ^
                bot.yaml:5:1: error: unknown key 'comands', did you mean 'commands'?
                comands: {}
                ^
                bot.yaml:8:5: error: unknown key 'descripton', did you mean 'description'?
                    descripton: typo
                    ^
                bot.yaml:10:11: error: expected a sequence, found a mapping
                    args: {}
                          ^
                """)
            return true
        }
    }
}
