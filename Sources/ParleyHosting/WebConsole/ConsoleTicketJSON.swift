import Foundation
import ParleyBots
import ParleyCore

/// A ticket as the console shows it: what the admin API shows (`AdminAPI.json`), plus what an
/// agent needs to pick it up — the customer's card, the hand-off note and the conversation's
/// last messages.
enum ConsoleTicketJSON {
    /// Messages of a ticket fetched by itself (`GET …/tickets/{queue}/{number}`, an action's
    /// answer), and of each ticket of the event stream's list.
    static let detailMessages = 50
    static let listMessages = 20

    static func json(_ ticket: Ticket, messages: [TicketMessage]) -> JSONValue {
        var fields = AdminAPI.json(ticket).objectValue ?? [:]
        // A ticket stored before cards were kept shows its user id as the name.
        var customer = (ticket.customer ?? VCardContent(user: ticket.user, name: ticket.user)).encodeFields()
        customer["user"] = nil
        customer["id"] = .string(ticket.user)
        fields["customer"] = .object(customer)
        fields["note"] = ticket.note.map(JSONValue.string) ?? .null
        fields["messages"] = .array(messages.map { message in
            ["from": .string(message.from.rawValue), "name": .string(message.name), "text": .string(message.text),
             "time": .string(message.time.formatted(.iso8601))]
        })
        return .object(fields)
    }

    /// One ticket asked for, with its last `detailMessages` messages read through the bot
    /// that opened it (none when they cannot be read now).
    static func detail(_ ticket: Ticket, host: BotHost) async -> JSONValue {
        json(ticket, messages: await host.conversation(of: ticket, limit: detailMessages) ?? [])
    }
}
