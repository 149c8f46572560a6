import Foundation
import Testing
import YAMLCoding
import ParleyBots

/// The example bots decode into the documented structure.
@Suite struct BotSchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func example(_ path: String) throws -> (text: String, bot: BotDefinition) {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        return (text, try BotCheck.decode(text, file: path))
    }

    @Test func supportBotStructure() throws {
        let (text, bot) = try BotSchemaTests.example("bots/support.yaml")
        #expect(BotValidator.validate(bot, source: SourceFile(name: "bots/support.yaml", text: text)).isEmpty)
        #expect(bot.name?.value == "Support")
        #expect(bot.commandPrefix == "/")
        #expect(bot.commands.names == ["help", "card", "docs", "refund", "callback", "status"])
        #expect(bot.commands["docs"]?.aliases.map(\.value) == ["manual"])
        #expect(bot.commands["card"]?.args.map(\.value) == ["user"])
        #expect(bot.triggers.first?.match?.value == #"(?i)\bthanks?\b"#)
        #expect(bot.triggers.last?.contains?.value == "call me")
        #expect(bot.handoff?.queues.names == ["agents", "phone"])
        #expect(bot.handoff?.queues["agents"]?.assignment == .roundRobin)
        #expect(bot.handoff?.queues["phone"]?.hours?.timezone.value == "Europe/Berlin")
        #expect(bot.handoff?.onResolve?.value == "survey.rate")
        #expect(bot.cards["order"]?.type.value == 1001)
        #expect(bot.cards["order"]?.fields.map(\.value) == ["order_id", "status"])
        #expect(bot.fallback?.value.items.count == 1)
    }

    @Test func doListKeepsOrderAndQuoteModifiesReply() throws {
        let refund = try #require(try BotSchemaTests.example("bots/support.yaml").bot.commands["refund"])
        #expect(refund.actions.map(\.action.key) == [.react, .reply, .goto])
        guard case .reply(let text, let quote) = refund.actions[1].action else {
            Issue.record("expected a reply")
            return
        }
        #expect(text.value == "Let's sort this out.")
        #expect(quote)
        #expect(text.mark == Mark(line: 25, column: 16))
    }

    @Test func flowStepsAskAndDirectActionsInFileOrder() throws {
        let bot = try BotSchemaTests.example("bots/support.yaml").bot
        let refund = try #require(bot.flows["refund"])
        #expect(refund.names == ["order", "confirm"])
        let order = try #require(refund["order"])
        let ask = try #require(order.ask)
        #expect(ask.save?.value == "order_id")
        #expect(ask.timeoutDuration == .seconds(600))
        #expect(ask.onTimeout?.value.items.map(\.action.key) == [.reply, .goto])
        #expect(order.next?.value == "confirm")
        let confirm = try #require(refund["confirm"])
        #expect(confirm.actions.map(\.action.key) == [.send, .handoff])
        guard case .send(let send, false) = confirm.actions[0].action else {
            Issue.record("expected an unquoted send")
            return
        }
        #expect(send.card?.value == "order")
        #expect(send.fields.names == ["order_id", "status"])
        #expect(send.fields["status"]?.value == "refund requested")
    }

    @Test func helpTextListsCommandsWithArgs() throws {
        let bot = try BotSchemaTests.example("bots/support.yaml").bot
        #expect(bot.helpText == """
            /help — Show what I can do
            /card <user> — Send someone's business card
            /docs — Link to the manual
            /refund — Ask for a refund
            /callback — Ask for a call back
            /status <order> — Show the status of an order
            """)
    }

    @Test func announcerSchedule() throws {
        let schedule = try #require(try BotSchemaTests.example("bots/announcer.yaml").bot.schedules.first)
        #expect(schedule.name.value == "morning")
        #expect(schedule.cronExpression?.hours == [9])
        #expect(schedule.timeZone?.identifier == "Europe/Berlin")
        #expect(schedule.catchUpPolicy == .once)
        let broadcast = try #require(schedule.broadcast?.value)
        #expect(broadcast.to?.map(\.value) == ["group:announcements", "user:alice", "user:bob"])
        #expect(broadcast.parsedRate == Rate(count: 20, per: .seconds(1)))
        #expect(broadcast.send.text?.value == "Good morning, {{recipient.name}}!")
    }

    @Test func hostConfigDefaultsAndAnOpaqueTransportSection() throws {
        let yaml = """
            transport:
              kind: matrix
              homeserver: http://127.0.0.1:8008
              accounts:
                support: { user: "@support:localhost", password: "${SUPPORT_PASSWORD}" }
            """
        let config = try YAMLDecoder(environment: [:]).decode(HostConfig.self, from: yaml, file: "config.yaml")
        #expect(config.transportKind == "matrix")
        #expect(config.botsFolder == "bots")
        #expect(config.storagePath == ".parley/parley.db")
        // The engine keeps the section for the transport's provider, unread: its keys, and
        // its `${VAR}`s, are the provider's to decode.
        #expect(config.transport?.section["accounts"]?["support"]?["password"]?.scalar?.value == "${SUPPORT_PASSWORD}")
        #expect(config.transport?.kind?.mark == Mark(line: 2, column: 9))
        #expect(HostConfigValidator.validate(config, source: SourceFile(name: "config.yaml", text: yaml)).isEmpty)
        #expect(try YAMLDecoder(environment: [:]).decode(HostConfig.self, from: "bots: bots", file: "c.yaml").transportKind == "local")
        #expect(throws: YAMLErrors.self) {
            _ = try YAMLDecoder(environment: [:]).decode(HostConfig.self, from: "transport: matrix", file: "c.yaml")
        }
    }

    @Test func cardCodesAcrossBots() throws {
        func bot(_ id: String, _ fields: String) throws -> LoadedBot {
            let yaml = "commands:\n  x: { reply: x }\ncards:\n  order:\n    type: 1001\n    fields: [\(fields)]\n    fallback: x\n"
            return LoadedBot(file: "bots/\(id).yaml", id: id, definition: try BotCheck.decode(yaml, file: "bots/\(id).yaml"),
                             source: SourceFile(name: "bots/\(id).yaml", text: yaml))
        }
        // The same definition in two bots is fine; a different one under the same code is not.
        #expect(HostValidator.crossCheck([try bot("a", "id"), try bot("b", "id")]).isEmpty)
        #expect(HostValidator.crossCheck([try bot("a", "id"), try bot("c", "id, status")]).map(\.description) == ["""
            bots/c.yaml:5:11: error: card type 1001 of card 'order' is already used by card 'order' of bot 'a' with different fields or fallback: one code must mean one card on a host
                type: 1001
                      ^
            """])
    }

    @Test func lookupsShareTheValidatorsRules() throws {
        let bot = try BotSchemaTests.example("bots/support.yaml").bot
        #expect(bot.stepTarget("end", inFlow: nil) == .end)
        #expect(bot.stepTarget("refund.confirm", inFlow: nil) == .step(flow: "refund", step: "confirm"))
        #expect(bot.stepTarget("confirm", inFlow: "refund") == .step(flow: "refund", step: "confirm"))
        #expect(bot.stepTarget("confirm", inFlow: nil) == nil)
        #expect(bot.stepTarget("refund", inFlow: nil) == .step(flow: "refund", step: "order"))
        #expect(bot.stepTarget("refund.nope", inFlow: nil) == nil)
        #expect(bot.command(named: "manual")?.name == "docs")
        #expect(bot.command(named: "docs")?.command.aliases.map(\.value) == ["manual"])
        #expect(bot.command(named: "nope") == nil)
        #expect(bot.fields(ofCard: "order") == ["order_id", "status"])
        #expect(bot.fields(ofCard: "link") == ["text", "url", "description", "image"])
        #expect(bot.fields(ofCard: "nope") == nil)
    }
}
