import YAMLCoding
import Foundation
import ParleyCore

extension BotValidator {
    /// Custom cards: names, codes ≥ 1000 and unique, fields, fallback templates.
    func checkCards() {
        var codes: [Int: String] = [:]
        for entry in bot.cards.entries {
            let card = entry.value
            if BuiltInCard.named[entry.name] != nil {
                let builtIns = BuiltInCard.all.map(\.name).joined(separator: ", ")
                fail(entry.keyMark, "card name '\(entry.name)' is a built-in card: choose another name (built-ins: \(builtIns))")
            } else if !BotValidator.isName(entry.name) {
                fail(entry.keyMark, "invalid card name '\(entry.name)': expected letters, digits, '_' or '-'")
            }
            if card.type.value < Int(CardDefinition.firstCustomCode) {
                fail(card.type.mark, "card type \(card.type.value) of card '\(entry.name)' is reserved: custom card types are 1000 or above")
            } else if let other = codes[card.type.value] {
                fail(card.type.mark, "card type \(card.type.value) of card '\(entry.name)' is already used by card '\(other)'")
            } else {
                codes[card.type.value] = entry.name
            }
            var seen: Set<String> = []
            for field in card.fields {
                if CardDefinition.reservedFieldNames.contains(field.value) {
                    fail(field.mark, "field name '\(field.value)' is reserved (type, fallback and card mean something in 'send'): choose another name")
                } else if !BotValidator.isName(field.value) {
                    fail(field.mark, "invalid field name '\(field.value)': expected letters, digits, '_' or '-'")
                } else if !seen.insert(field.value).inserted {
                    fail(field.mark, "duplicate field '\(field.value)' in card '\(entry.name)'")
                }
            }
            checkCardFallback(card.fallback, card: entry.name, fields: card.fields.map(\.value))
        }
    }

    /// A card's fallback is rendered from the card's own fields only: `{{order_id}}`.
    private func checkCardFallback(_ fallback: Located<String>, card: String, fields: [String]) {
        checkPlaceholders(fallback) { path in
            fields.contains(path) ? nil
                : "unknown field '{{\(path)}}' in the fallback of card '\(card)': a fallback may use only its card's fields ("
                    + (fields.isEmpty ? "it has none" : fields.map { "{{\($0)}}" }.joined(separator: ", ")) + ")"
        }
    }

    /// Schedules: unique names, cron, time zone, catch-up, and one broadcast. A `do:` list is
    /// refused by name: with no conversation, all a schedule's actions could do is send to
    /// named targets, which is what its broadcast does (durably, exactly once, resumable).
    func checkSchedules() {
        var names: Set<String> = []
        for schedule in bot.schedules {
            let place = "schedule '\(schedule.name.value)'"
            checkName(schedule.name, what: "schedule name")
            if !names.insert(schedule.name.value).inserted {
                fail(schedule.name.mark, "duplicate schedule name '\(schedule.name.value)'")
            }
            do {
                if let reason = try CronExpression(schedule.cron.value).neverFiresReason {
                    fail(schedule.cron.mark, "cron '\(schedule.cron.value)' never fires: \(reason)")
                }
            } catch {
                let offset = ScalarPosition.mark(of: error.offset, in: schedule.cron, source: source)
                fail(offset, error.message)
            }
            if let zone = schedule.timezone, TimeZone(identifier: zone.value) == nil {
                fail(zone.mark, "unknown time zone '\(zone.value)': expected an IANA name like Europe/Berlin, America/New_York or UTC")
            }
            if let catchUp = schedule.catchUp, Schedule.CatchUp(rawValue: catchUp.value) == nil {
                fail(catchUp.mark, "invalid catch_up '\(catchUp.value)': expected none or once")
            }
            if let window = schedule.catchUpWindow {
                checkDuration(window)
                if schedule.catchUpPolicy == .none {
                    fail(window.mark, "'catch_up_window' has no effect with 'catch_up: none': remove it or use 'catch_up: once'")
                }
            }
            let scope = TemplateScope(place: .text(place), conversation: false)
            if let actions = schedule.actions {
                fail(actions.mark, "\(place) cannot run a 'do:' list: a schedule sends a 'broadcast' "
                    + "(to: a list of user:ID or group:ID targets, even a single one)")
            }
            if let broadcast = schedule.broadcast {
                checkActions([ActionItem(action: .broadcast(broadcast.value), mark: broadcast.mark)], scope: scope)
            } else if schedule.actions == nil {
                fail(schedule.mark, "\(place) needs a 'broadcast'")
            }
        }
    }
}
