extension UnknownKeyCase {
    /// Decodable schema types that have no fixed keys to check, and why.
    static let notKeyed: [String: String] = [
        "ParleyBots/Schema/OrderedMap.swift: OrderedMap": "its keys are names the user chooses (commands, flows, cards, fields)",
        "ParleyBots/Schema/ActionList.swift: ActionList": "a sequence: its items are the row of ListItem",
        "ParleyBots/Schema/TransportConfig.swift: TransportConfig": "its keys are its provider's: the rows of Settings and MatrixSettings",
    ]

    /// One row per keyed type.
    static let all: [UnknownKeyCase] = config + transport + bot + actions + flowTest

    static let config: [UnknownKeyCase] = [
        UnknownKeyCase(source: "ParleyBots/Schema/HostConfig.swift", type: "HostConfig", file: "config.yaml",
                       text: "bots: bots\nbogus_key: 1\n",
                       error: "config.yaml:2:1: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/StorageConfig.swift", type: "StorageConfig", file: "config.yaml",
                       text: "storage: { path: x.db, bogus_key: 1 }\n",
                       error: "config.yaml:1:24: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/ProfilesConfig.swift", type: "ProfilesConfig", file: "config.yaml",
                       text: "profiles: { expire: 10m, bogus_key: 1 }\n",
                       error: "config.yaml:1:26: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/LogConfig.swift", type: "LogConfig", file: "config.yaml",
                       text: "log: { level: info, bogus_key: 1 }\n",
                       error: "config.yaml:1:21: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/BroadcastLimits.swift", type: "BroadcastLimits", file: "config.yaml",
                       text: "broadcasts: { rate: 100/s, bogus_key: 1 }\n",
                       error: "config.yaml:1:28: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/LimitsConfig.swift", type: "LimitsConfig", file: "config.yaml",
                       text: "limits: { message_size: 64KB, bogus_key: 1 }\n",
                       error: "config.yaml:1:31: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/HTTPConfig.swift", type: "HTTPConfig", file: "config.yaml",
                       text: "http: { listen: 127.0.0.1:8080, bogus_key: 1 }\n",
                       error: "config.yaml:1:33: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/WebChatConfig.swift", type: "WebChatConfig", file: "config.yaml",
                       text: "http: { listen: 127.0.0.1:8080, web_chat: { bots: [t], bogus_key: 1 } }\n",
                       error: "config.yaml:1:56: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/WebChatConfig.swift", type: "WebChatRates", file: "config.yaml",
                       text: "http: { listen: 127.0.0.1:8080, web_chat: { bots: [t], rate: { session: 1/s, bogus_key: 1 } } }\n",
                       error: "config.yaml:1:78: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/WebChatConfig.swift", type: "AgentLogin", file: "config.yaml",
                       text: "http: { listen: 127.0.0.1:8080, agents: { nina: { token: abcdefghijklmnopq, queues: [q], bogus_key: 1 } } }\n",
                       error: "config.yaml:1:90: error: unknown key 'bogus_key'"),
    ]

    /// The `transport:` section, as each kind's provider reads it.
    static let transport: [UnknownKeyCase] = [
        UnknownKeyCase(source: "ParleyHosting/Local/LocalTransportProvider.swift", type: "Settings", file: "config.yaml",
                       text: "transport: { kind: local, bogus_key: 1 }\n",
                       error: "config.yaml:1:27: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyHosting/Matrix/MatrixSettings.swift", type: "MatrixSettings", file: "config.yaml",
                       text: """
                           transport:
                             kind: matrix
                             homeserver: http://127.0.0.1:8008
                             accounts: { t: { user: "@t:localhost", password: x } }
                             bogus_key: 1
                           """,
                       error: "config.yaml:5:3: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyHosting/Matrix/MatrixSettings.swift", type: "MatrixAccountSettings", file: "config.yaml",
                       text: """
                           transport:
                             kind: matrix
                             homeserver: http://127.0.0.1:8008
                             accounts: { t: { user: "@t:localhost", password: x, bogus_key: 1 } }
                           """,
                       error: "config.yaml:4:55: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyHosting/Matrix/MatrixSettings.swift", type: "MatrixEncryptionSettings", file: "config.yaml",
                       text: """
                           transport:
                             kind: matrix
                             homeserver: http://127.0.0.1:8008
                             accounts: { t: { user: "@t:localhost", password: x } }
                             encryption: { mode: off, bogus_key: 1 }
                           """,
                       error: "config.yaml:5:28: error: unknown key 'bogus_key'"),
    ]

    static let bot: [UnknownKeyCase] = [
        UnknownKeyCase(source: "ParleyBots/Schema/BotDefinition.swift", type: "BotDefinition", file: "bots/t.yaml",
                       text: "name: T\nfallback: [ { reply: hi } ]\nbogus_key: 1\n",
                       error: "bots/t.yaml:3:1: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/AllowList.swift", type: "AllowList", file: "bots/t.yaml",
                       text: "allow: { users: [alice], bogus_key: 1 }\nfallback: [ { reply: hi } ]\n",
                       error: "bots/t.yaml:1:26: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/Command.swift", type: "Command", file: "bots/t.yaml",
                       text: "commands:\n  hi: { reply: hello, bogus_key: 1 }\n",
                       error: "bots/t.yaml:2:23: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/Trigger.swift", type: "Trigger", file: "bots/t.yaml",
                       text: "triggers:\n  - { contains: hi, reply: hello, bogus_key: 1 }\n",
                       error: "bots/t.yaml:2:35: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/Step.swift", type: "Step", file: "bots/t.yaml",
                       text: "flows:\n  f:\n    s: { reply: hello, bogus_key: 1 }\n",
                       error: "bots/t.yaml:3:24: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/Ask.swift", type: "Ask", file: "bots/t.yaml",
                       text: "flows:\n  f:\n    s: { ask: { save: x, bogus_key: 1 } }\n",
                       error: "bots/t.yaml:3:26: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/Audience.swift", type: "Audience", file: "bots/t.yaml",
                       text: "name: T\nfallback: [ { reply: hi } ]\naudiences:\n  news: { unsubscribe: [stop], bogus_key: 1 }\n",
                       error: "bots/t.yaml:4:32: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/Schedule.swift", type: "Schedule", file: "bots/t.yaml",
                       text: """
                           schedules:
                             - name: n
                               cron: "0 9 * * *"
                               broadcast: { to: ["user:alice"], send: { text: hi } }
                               bogus_key: 1
                           """,
                       error: "bots/t.yaml:5:5: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/CardDeclaration.swift", type: "CardDeclaration", file: "bots/t.yaml",
                       text: "cards:\n  c: { type: 1001, fields: [a], fallback: \"{{a}}\", bogus_key: 1 }\nfallback: [ { reply: hi } ]\n",
                       error: "bots/t.yaml:2:52: error: unknown key 'bogus_key'"),
    ]

    /// Action values, each in a `fallback:` list (or a schedule, for `broadcast:`).
    static let actions: [UnknownKeyCase] = [
        UnknownKeyCase(source: "ParleyBots/Schema/ActionList.swift", type: "ListItem", file: "bots/t.yaml",
                       text: "fallback:\n  - { reply: hello, bogus_key: 1 }\n",
                       error: "bots/t.yaml:2:21: error: unknown key 'bogus_key'"),
        // Keys of a `send:` besides text, card and to are card fields: validation refuses them
        // for a text.
        UnknownKeyCase(source: "ParleyBots/Schema/SendAction.swift", type: "SendAction", file: "bots/t.yaml",
                       text: "fallback:\n  - send: { text: hello, bogus_key: 1 }\n",
                       error: "bots/t.yaml:2:26: error: unknown key 'bogus_key' in a text 'send': expected text or to (card fields need a 'card')"),
        UnknownKeyCase(source: "ParleyBots/Schema/HandoffAction.swift", type: "HandoffAction", file: "bots/t.yaml",
                       text: "fallback:\n  - handoff: { queue: agents, bogus_key: 1 }\n",
                       error: "bots/t.yaml:2:31: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/HandoffPolicy.swift", type: "HandoffPolicy", file: "bots/t.yaml",
                       text: "fallback:\n  - handoff: { queue: agents }\nhandoff: { queues: {}, bogus_key: 1 }\n",
                       error: "bots/t.yaml:3:24: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/HandoffPolicy.swift", type: "QueuePolicy", file: "bots/t.yaml",
                       text: "fallback:\n  - handoff: { queue: agents }\nhandoff:\n  queues:\n    agents: { assign: manual, bogus_key: 1 }\n",
                       error: "bots/t.yaml:5:31: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/OpeningHoursSpec.swift", type: "OpeningHoursSpec", file: "bots/t.yaml",
                       text: "fallback:\n  - handoff: { queue: agents }\nhandoff:\n  queues:\n    agents: { hours: { timezone: UTC, open: [\"Mon 09:00-17:00\"], bogus_key: 1 } }\n",
                       error: "bots/t.yaml:5:66: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/BroadcastAction.swift", type: "BroadcastAction", file: "bots/t.yaml",
                       text: """
                           schedules:
                             - name: n
                               cron: "0 9 * * *"
                               broadcast: { to: ["user:alice"], send: { text: hi }, bogus_key: 1 }
                           """,
                       error: "bots/t.yaml:4:58: error: unknown key 'bogus_key'"),
    ]

    /// A flow-test file for the bot `t`.
    static let flowTest: [UnknownKeyCase] = [
        UnknownKeyCase(source: "ParleyFlowTest/TestFile.swift", type: "TestFile", file: "bots/t.test.yaml",
                       text: "bot: t\ntests: [ { name: n, steps: [ { advance: 1s } ] } ]\nbogus_key: 1\n",
                       error: "bots/t.test.yaml:3:1: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyFlowTest/TestFile.swift", type: "TestCase", file: "bots/t.test.yaml",
                       text: "bot: t\ntests:\n  - { name: n, steps: [ { advance: 1s } ], bogus_key: 1 }\n",
                       error: "bots/t.test.yaml:3:44: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyFlowTest/TestFile.swift", type: "TestStep", file: "bots/t.test.yaml",
                       text: "bot: t\ntests:\n  - name: n\n    steps:\n      - { advance: 1s, bogus_key: 1 }\n",
                       error: "bots/t.test.yaml:5:24: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyFlowTest/TestFile.swift", type: "Spoken", file: "bots/t.test.yaml",
                       text: "bot: t\ntests:\n  - name: n\n    steps:\n      - send: { text: hi, bogus_key: 1 }\n",
                       error: "bots/t.test.yaml:5:27: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyFlowTest/TestFile.swift", type: "Spoken", file: "bots/t.test.yaml",
                       text: "bot: t\ntests:\n  - name: n\n    steps:\n      - react: { emoji: \"👍\", bogus_key: 1 }\n",
                       error: "bots/t.test.yaml:5:30: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyFlowTest/TestFile.swift", type: "PauseBroadcast", file: "bots/t.test.yaml",
                       text: "bot: t\ntests:\n  - name: n\n    steps:\n      - pause_broadcast: { schedule: s, after: 1, bogus_key: 1 }\n",
                       error: "bots/t.test.yaml:5:51: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyFlowTest/TestFile.swift", type: "Expectation", file: "bots/t.test.yaml",
                       text: "bot: t\ntests:\n  - name: n\n    steps:\n      - expect: { none: true, bogus_key: 1 }\n",
                       error: "bots/t.test.yaml:5:31: error: unknown key 'bogus_key'"),
        UnknownKeyCase(source: "ParleyBots/Schema/ProfileEntry.swift", type: "ProfileEntry", file: "bots/t.test.yaml",
                       text: "bot: t\nprofiles:\n  alice: { name: Alice, bogus_key: 1 }\ntests: [ { name: n, steps: [ { advance: 1s } ] } ]\n",
                       error: "bots/t.test.yaml:3:25: error: unknown key 'bogus_key'"),
    ]
}
