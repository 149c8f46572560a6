import ParleyBots

extension BotValidationErrorTests {
    /// References and shapes: goto / next targets, cards, targets, action items, triggers, commands.
    static let structureCases: [ValidationCase] = [
        ValidationCase(name: "gotoAndNextTargets", yaml: #"""
            commands:
              start:
                goto: refund.ordr
              other:
                goto: order
            flows:
              refund:
                order:
                  reply: "Number?"
                  next: confirm
                confirm:
                  reply: "Done"
                  next: billing.start
            """#, expected: #"""
            bots/t.yaml:3:11: error: unknown goto target 'refund.ordr': flow 'refund' has no step 'ordr' (its steps: order, confirm)
                goto: refund.ordr
                      ^
            bots/t.yaml:5:11: error: unknown goto target 'order': expected 'end', FLOW.STEP or a flow name (flows: refund)
                goto: order
                      ^
            bots/t.yaml:13:13: error: unknown next target 'billing.start': expected 'end', FLOW.STEP, a step of this flow or a flow name (flows: refund)
                  next: billing.start
                        ^
            """#),
        ValidationCase(name: "cardsInSend", yaml: #"""
            commands:
              a:
                send: { card: vcrd, user: bob }
              b:
                send: { card: image, text: "a photo", url: "https://example.com/x.png", alt: "x" }
              c:
                send: { text: "hi", url: "https://example.com" }
              d:
                send: { to: "user:bob" }
            """#, expected: #"""
            bots/t.yaml:3:19: error: unknown card 'vcrd': expected one of greeting, vcard, link, image
                send: { card: vcrd, user: bob }
                              ^
            bots/t.yaml:5:32: error: card 'image' has no field 'text': its fields are url, width, height
                send: { card: image, text: "a photo", url: "https://example.com/x.png", alt: "x" }
                                           ^
            bots/t.yaml:5:77: error: card 'image' has no field 'alt': its fields are url, width, height
                send: { card: image, text: "a photo", url: "https://example.com/x.png", alt: "x" }
                                                                                        ^
            bots/t.yaml:7:25: error: unknown key 'url' in a text 'send': expected text or to (card fields need a 'card')
                send: { text: "hi", url: "https://example.com" }
                                    ^
            bots/t.yaml:9:11: error: 'send' needs 'text' or 'card'
                send: { to: "user:bob" }
                      ^
            """#),
        ValidationCase(name: "customCardRules", yaml: #"""
            cards:
              link:
                type: 1001
                fields: [text]
                fallback: "{{text}}"
              order:
                type: 999
                fields: [order_id, type]
                fallback: "Order {{order_id}} {{status}}"
              ticket:
                type: 1002
                fields: [id]
                fallback: "Ticket {{id}}"
              invoice:
                type: 1002
                fields: [id, id]
                fallback: "Invoice {{id}"
            commands:
              x:
                reply: x
            """#, expected: #"""
            bots/t.yaml:2:3: error: card name 'link' is a built-in card: choose another name (built-ins: greeting, vcard, link, image)
              link:
              ^
            bots/t.yaml:7:11: error: card type 999 of card 'order' is reserved: custom card types are 1000 or above
                type: 999
                      ^
            bots/t.yaml:8:24: error: field name 'type' is reserved (type, fallback and card mean something in 'send'): choose another name
                fields: [order_id, type]
                                   ^
            bots/t.yaml:9:35: error: unknown field '{{status}}' in the fallback of card 'order': a fallback may use only its card's fields ({{order_id}}, {{type}})
                fallback: "Order {{order_id}} {{status}}"
                                              ^
            bots/t.yaml:15:11: error: card type 1002 of card 'invoice' is already used by card 'ticket'
                type: 1002
                      ^
            bots/t.yaml:16:18: error: duplicate field 'id' in card 'invoice'
                fields: [id, id]
                             ^
            bots/t.yaml:17:24: error: invalid template: unclosed '{{'
                fallback: "Invoice {{id}"
                                   ^
            """#),
        ValidationCase(name: "targets", yaml: #"""
            allow:
              channels: ["group:helpdesk", "helpdesk", "local:x"]
            commands:
              x:
                send: { text: hi, to: "room:1" }
            """#, expected: #"""
            bots/t.yaml:2:32: error: invalid target 'helpdesk': expected user:ID or group:ID
              channels: ["group:helpdesk", "helpdesk", "local:x"]
                                           ^
            bots/t.yaml:2:44: error: invalid target 'local:x': expected user:ID or group:ID
              channels: ["group:helpdesk", "helpdesk", "local:x"]
                                                       ^
            bots/t.yaml:5:27: error: invalid target 'room:1': expected user:ID or group:ID
                send: { text: hi, to: "room:1" }
                                      ^
            """#),
        ValidationCase(name: "actionItemShape", yaml: #"""
            commands:
              x:
                do:
                  - reply: hi
                    react: "👍"
                  - quote: true
                  - {}
              y:
                react: "👍"
                do:
                  - reply: hi
            """#, expected: #"""
            bots/t.yaml:5:16: error: one action per list item, found 'reply' and 'react': start a new item with '- ' for each action
                    react: "👍"
                           ^
            bots/t.yaml:6:16: error: 'quote' modifies a 'reply' or 'send' in the same place, but there is none
                  - quote: true
                           ^
            bots/t.yaml:7:9: error: expected an action (reply, send, react, unreact, broadcast, goto, set, handoff, wait)
                  - {}
                    ^
            bots/t.yaml:9:12: error: 'react' next to 'do:': put every action in the 'do:' list, or write them all directly
                react: "👍"
                       ^
            """#),
        ValidationCase(name: "triggerShape", yaml: #"""
            triggers:
              - match: "a"
                contains: "b"
                reply: x
              - reply: y
              - contains: z
            """#, expected: #"""
            bots/t.yaml:3:15: error: trigger 1 has both 'match' and 'contains': use one of them
                contains: "b"
                          ^
            bots/t.yaml:5:5: error: trigger 2 needs 'match' (a regex), 'contains' (a text) or 'reaction' (an emoji)
              - reply: y
                ^
            bots/t.yaml:6:5: error: trigger 3 does nothing: add an action (reply, send, react, unreact, broadcast, goto, set, handoff, wait) or a 'do:' list
              - contains: z
                ^
            """#),
        ValidationCase(name: "reactionShape", yaml: #"""
            triggers:
              - reaction: "👍"
                reply: "Thanks, {{user.name}}: {{message.text}}"
              - reaction: "ok"
                reply: x
              - match: "a"
                reaction: "👎"
                reply: y
              - reaction: ""
                reply: z
            flows:
              f:
                s:
                  reply: "Rate?"
                  ask: { save: score, reactions: ["👍", "👍", "no"] }
                t:
                  ask: { save: other, reactions: [] }
            """#, expected: #"""
            bots/t.yaml:4:15: error: invalid reaction 'ok': expected one emoji, like "👍"
              - reaction: "ok"
                          ^
            bots/t.yaml:7:15: error: trigger 3 has both 'match' and 'reaction': use one of them
                reaction: "👎"
                          ^
            bots/t.yaml:9:15: error: invalid reaction '': expected one emoji, like "👍"
              - reaction: ""
                          ^
            bots/t.yaml:15:44: error: duplicate reaction '👍' in 'reactions'
                  ask: { save: score, reactions: ["👍", "👍", "no"] }
                                                       ^
            bots/t.yaml:15:49: error: invalid reaction 'no': expected one emoji, like "👍"
                  ask: { save: score, reactions: ["👍", "👍", "no"] }
                                                            ^
            bots/t.yaml:17:38: error: 'reactions' is empty: expected emojis that answer the question, like ["👍", "👎"]
                  ask: { save: other, reactions: [] }
                                                 ^
            """#),
        ValidationCase(name: "reactionKeyTypo", yaml: #"""
            triggers:
              - reactoin: "👍"
                reply: z
            """#, expected: #"""
            bots/t.yaml:2:5: error: unknown key 'reactoin', did you mean 'reaction'?
              - reactoin: "👍"
                ^
            """#),
        ValidationCase(name: "commandShape", yaml: #"""
            commands:
              help:
                description: Help
              card:
                aliases: [help, vcard]
                args: [user, user]
                reply: hi
              "two words":
                reply: x
            """#, expected: #"""
            bots/t.yaml:2:3: error: command 'help' does nothing: add an action (reply, send, react, unreact, broadcast, goto, set, handoff, wait) or a 'do:' list
              help:
              ^
            bots/t.yaml:5:15: error: alias 'help' of command 'card' is already taken by command 'help'
                aliases: [help, vcard]
                          ^
            bots/t.yaml:6:18: error: duplicate arg 'user' in command 'card'
                args: [user, user]
                             ^
            bots/t.yaml:8:3: error: invalid command name 'two words': expected letters, digits, '_' or '-'
              "two words":
              ^
            """#),
        ValidationCase(name: "templateSyntax", yaml: #"""
            commands:
              x:
                reply: "Hello {{user.name"
              y:
                reply: "Hello {{user..name}}"
            """#, expected: #"""
            bots/t.yaml:3:19: error: invalid template: unclosed '{{'
                reply: "Hello {{user.name"
                              ^
            bots/t.yaml:5:19: error: invalid template: invalid placeholder '{{user..name}}': expected a dotted name like user.name
                reply: "Hello {{user..name}}"
                              ^
            """#),
        // A command named like an earlier alias, and an alias two commands share.
        ValidationCase(name: "commandAfterAlias", yaml: #"""
            commands:
              card:
                aliases: [vcard, c]
                reply: hi
              vcard:
                aliases: [c]
                reply: ho
            """#, expected: #"""
            bots/t.yaml:5:3: error: command 'vcard' is already an alias of command 'card'
              vcard:
              ^
            bots/t.yaml:6:15: error: alias 'c' of command 'vcard' is already taken by command 'card'
                aliases: [c]
                          ^
            """#),
        // A malformed template reports its syntax error only, not the unknown variables before it.
        ValidationCase(name: "templateSyntaxAfterUnknownVariables", yaml: #"""
            commands:
              x:
                reply: "{{args.a}} {{user.nam}} {{vars.v}} {{x"
            """#, expected: #"""
            bots/t.yaml:3:48: error: invalid template: unclosed '{{'
                reply: "{{args.a}} {{user.nam}} {{vars.v}} {{x"
                                                           ^
            """#),
        // Every kind of placeholder a command may use, and near misses of each.
        ValidationCase(name: "templateVariablesNearMisses", yaml: #"""
            commands:
              x:
                args: [a, ab]
                reply: "{{bot.id}}{{bot.name}}{{help}}{{user.id}}{{user.name}}{{message.text}}{{args.a}}{{args.ab}}{{vars.v}}"
                set: { v: "{{args.b}}{{user.name.x}}{{help.x}}{{messages.text}}{{argsa}}{{bot}}" }
            """#, expected: #"""
            bots/t.yaml:5:15: error: unknown template variable '{{args.b}}': command 'x' has args a, ab
                set: { v: "{{args.b}}{{user.name.x}}{{help.x}}{{messages.text}}{{argsa}}{{bot}}" }
                          ^
            bots/t.yaml:5:26: error: unknown template variable '{{user.name.x}}': expected one of bot.id, bot.name, help, user.id, user.name, message.text, args.a, args.ab, vars.v
                set: { v: "{{args.b}}{{user.name.x}}{{help.x}}{{messages.text}}{{argsa}}{{bot}}" }
                                     ^
            bots/t.yaml:5:41: error: unknown template variable '{{help.x}}': expected one of bot.id, bot.name, help, user.id, user.name, message.text, args.a, args.ab, vars.v
                set: { v: "{{args.b}}{{user.name.x}}{{help.x}}{{messages.text}}{{argsa}}{{bot}}" }
                                                    ^
            bots/t.yaml:5:51: error: unknown template variable '{{messages.text}}': expected one of bot.id, bot.name, help, user.id, user.name, message.text, args.a, args.ab, vars.v
                set: { v: "{{args.b}}{{user.name.x}}{{help.x}}{{messages.text}}{{argsa}}{{bot}}" }
                                                              ^
            bots/t.yaml:5:68: error: unknown template variable '{{argsa}}': expected one of bot.id, bot.name, help, user.id, user.name, message.text, args.a, args.ab, vars.v
                set: { v: "{{args.b}}{{user.name.x}}{{help.x}}{{messages.text}}{{argsa}}{{bot}}" }
                                                                               ^
            bots/t.yaml:5:77: error: unknown template variable '{{bot}}': expected one of bot.id, bot.name, help, user.id, user.name, message.text, args.a, args.ab, vars.v
                set: { v: "{{args.b}}{{user.name.x}}{{help.x}}{{messages.text}}{{argsa}}{{bot}}" }
                                                                                        ^
            """#),
        ValidationCase(name: "emptyBot", yaml: #"""
            # nothing here
            name: Nobody
            """#, expected: #"""
            bots/t.yaml:1:1: error: the bot does nothing: expected at least one of commands, triggers, flows, schedules, greeting or fallback
            # nothing here
            ^
            """#),
        ValidationCase(name: "scheduleWithADoList", yaml: #"""
            schedules:
              - name: a
                cron: "@daily"
                do:
                  - send: { text: "hi", to: "group:x" }
              - name: b
                cron: "@daily"
            """#, expected: #"""
            bots/t.yaml:5:7: error: schedule 'a' cannot run a 'do:' list: a schedule sends a 'broadcast' (to: a list of user:ID or group:ID targets, even a single one)
                  - send: { text: "hi", to: "group:x" }
                  ^
            bots/t.yaml:6:5: error: schedule 'b' needs a 'broadcast'
              - name: b
                ^
            """#),
        ValidationCase(name: "reactions", yaml: #"""
            commands:
              a:
                do:
                  - react: thumbsup
                  - react: "👍🏽"
                  - react: "🇩🇪"
                  - react: "1"
                  - unreact: "❤️"
            """#, expected: #"""
            bots/t.yaml:4:16: error: invalid reaction 'thumbsup': expected one emoji, like "👍"
                  - react: thumbsup
                           ^
            bots/t.yaml:7:16: error: invalid reaction '1': expected one emoji, like "👍"
                  - react: "1"
                           ^
            """#),
        ValidationCase(name: "quoteElsewhere", yaml: #"""
            commands:
              a:
                send: { text: hi, to: "group:ops" }
                quote: true
            """#, expected: #"""
            bots/t.yaml:3:27: error: 'quote: true' quotes the triggering message in its own conversation, so it cannot go with 'to:'
                send: { text: hi, to: "group:ops" }
                                      ^
            """#),
    ]
}
