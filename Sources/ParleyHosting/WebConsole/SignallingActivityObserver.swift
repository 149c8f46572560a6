import ParleyBots
import ParleyCore

/// The bots' activity passed on to `inner` (the host's metrics) unchanged, and each event that
/// can change what the agents' console shows — a message in or out, a failed send, a ticket
/// answered or resolved, a connection — told to `signal` as well. Composed around the
/// metrics rather than counted twice: the bots keep one observer.
struct SignallingActivityObserver: BotActivityObserver {
    let inner: any BotActivityObserver
    let signal: HostChangeSignal

    func connection(bot: String, _ state: ConnectionState) {
        inner.connection(bot: bot, state)
        signal.notify()
    }

    func received(bot: String) {
        inner.received(bot: bot)
        signal.notify()
    }

    func sent(bot: String) {
        inner.sent(bot: bot)
        signal.notify()
    }

    func answered(bot: String, latency: Duration) { inner.answered(bot: bot, latency: latency) }

    func sendFailed(bot: String, _ error: ParleyError) {
        inner.sendFailed(bot: bot, error)
        signal.notify()
    }

    func rateLimited(bot: String) { inner.rateLimited(bot: bot) }

    func ticketAnswered(queue: String, after: Duration) {
        inner.ticketAnswered(queue: queue, after: after)
        signal.notify()
    }

    func ticketResolved(queue: String, after: Duration) {
        inner.ticketResolved(queue: queue, after: after)
        signal.notify()
    }
}
