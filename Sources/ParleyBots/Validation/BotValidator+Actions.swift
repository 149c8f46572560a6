import YAMLCoding
extension BotValidator {
    /// Every action of a list, with the list's own decoding issues.
    func checkActions(_ list: ActionList, scope: TemplateScope) {
        report(list.issues)
        checkActions(list.items, scope: scope)
    }

    /// Every action of a sequence.
    func checkActions(_ items: [ActionItem], scope: TemplateScope) {
        // Each item read in place: a `for item in items` loop (or an item passed by value)
        // copied every item with all of its payload.
        items.withUnsafeBufferPointer { items in
            guard let first = items.baseAddress else { return }
            for index in items.indices { checkAction(first + index, scope: scope) }
        }
    }

    /// `item` points into its list: only the parts a case binds are copied.
    private func checkAction(_ item: UnsafePointer<ActionItem>, scope: TemplateScope) {
        switch item.pointee.action {
        case .reply(let text, _):
            checkTemplate(text, scope: scope)
        case .send(let send, let quote):
            checkSend(send, scope: scope)
            if quote, let to = send.to {
                fail(to.mark, "'quote: true' quotes the triggering message in its own conversation, so it cannot go with 'to:'")
            }
        case .react(let emoji), .unreact(let emoji):
            checkEmoji(emoji, what: "reaction")
        case .broadcast(let broadcast):
            checkBroadcast(broadcast, scope: scope)
        case .goto(let target):
            checkStepTarget(target, key: "goto", flow: scope.flow)
        case .set(let values):
            for entry in values.entries {
                if !BotValidator.isName(entry.name) {
                    fail(entry.keyMark, "invalid variable name '\(entry.name)': expected letters, digits, '_' or '-'")
                }
                checkTemplate(entry.value, scope: scope)
            }
        case .handoff(let handoff):
            checkName(handoff.queue, what: "queue name")
            if let note = handoff.note { checkTemplate(note, scope: scope) }
        case .wait(let duration):
            checkDuration(duration)
        }
    }

    /// `send:`: a text or a known card with declared fields, an optional valid target.
    func checkSend(_ send: SendAction, scope: TemplateScope) {
        if let to = send.to { checkTarget(to) }
        if let text = send.text { checkTemplate(text, scope: scope) }
        for field in send.fields.entries { checkTemplate(field.value, scope: scope) }
        guard let card = send.card else {
            if send.text == nil {
                fail(send.mark, "'send' needs 'text' or 'card'")
            }
            for field in send.fields.entries {
                fail(field.keyMark, "unknown key '\(field.name)' in a text 'send': expected text or to (card fields need a 'card')")
            }
            return
        }
        guard let fields = cardFields[card.value] else {
            fail(card.mark, "unknown card '\(card.value)': expected one of " + bot.cardNames.joined(separator: ", "))
            return
        }
        if let text = send.text, !fields.contains("text") {
            fail(text.mark, "card '\(card.value)' has no field 'text': its fields are " + fields.joined(separator: ", "))
        }
        for field in send.fields.entries where !fields.contains(field.name) {
            fail(field.keyMark, "card '\(card.value)' has no field '\(field.name)': its fields are " + fields.joined(separator: ", "))
        }
    }

    private func checkBroadcast(_ broadcast: BroadcastAction, scope: TemplateScope) {
        var inner = scope
        inner.recipient = true
        if let audience = broadcast.audience {
            checkAudienceBroadcast(broadcast, audience: audience, scope: scope)
            inner.unsubscribe = true
        } else {
            checkTargets(of: broadcast)
        }
        if let rate = broadcast.rate { checkRate(rate) }
        checkSend(broadcast.send, scope: inner)
    }

    /// `audience:` instead of `to` / `to_file`, in a schedule (an action's broadcast goes to
    /// the targets the conversation names), naming one of the bot's audiences.
    private func checkAudienceBroadcast(_ broadcast: BroadcastAction, audience: Located<String>, scope: TemplateScope) {
        if let other = broadcast.to.map({ _ in "to" }) ?? broadcast.toFile.map({ _ in "to_file" }) {
            fail(audience.mark, "a broadcast has both 'audience' and '\(other)': use one of them")
        }
        if scope.conversation {
            fail(audience.mark, "'audience' is for a schedule's broadcast: a 'broadcast' action sends to 'to' targets")
        }
        if bot.audiences[audience.value] == nil {
            let known = bot.audiences.names
            fail(audience.mark, "unknown audience '\(audience.value)': "
                 + (known.isEmpty ? "the bot has no 'audiences:'" : "expected one of " + known.joined(separator: ", ")))
        }
    }

    private func checkTargets(of broadcast: BroadcastAction) {
        switch (broadcast.to, broadcast.toFile) {
        case (let to?, nil):
            if to.isEmpty { fail(broadcast.send.mark, "'broadcast.to' is empty: expected at least one target") }
            for target in to { checkTarget(target) }
        case (nil, let file?):
            if file.value.isEmpty { fail(file.mark, "'to_file' is empty: expected a file with one target a line") }
        case (_?, let file?):
            fail(file.mark, "a broadcast has both 'to' and 'to_file': use one of them")
        case (nil, nil):
            fail(broadcast.send.mark, "a broadcast needs 'to' (a list of targets), 'to_file' or 'audience'")
        }
    }
}
