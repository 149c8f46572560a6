import Foundation
import ParleyCore
import ParleyHTTPServer
import ParleyHub
import Synchronization

/// One visitor's conversation with one bot: their hub connection, the events it brought (a
/// bounded log, for streams that reconnect) and the event streams open now (a visitor may
/// have several tabs).
///
/// A pump takes everything the hub delivers to the visitor, keeps the events of the
/// conversation with the bot, and writes each to every open stream under the same lock that
/// a new stream replays the log under: so a stream gets every event after its
/// `Last-Event-ID` exactly once, whether it was in the log or came while it attached.
final class VisitorSession: Sendable {
    /// The cookie's secret; never shown to anyone else.
    let secret: String
    /// The visitor's hub user (`web-…`).
    let visitor: String
    /// The bot they talk to.
    let bot: String
    /// What the visitor sends through.
    let transport: HubTransport
    /// What the pump reads: a second device of the visitor's, so the hub delivers the
    /// visitor's own messages to it too, in the conversation's order (a sender's own
    /// connection does not get its sends back).
    private let receiver: HubTransport
    private let encoder: VisitorEventEncoder
    private let state: Mutex<State>
    private let pump = Mutex<Task<Void, Never>?>(nil)
    /// The visitor's messages' client numbers (Foundation's `UUID()` reads /dev/urandom anew
    /// each time).
    private let messageIDs = Mutex(UUIDSequence())

    private struct State {
        var name: String
        var botName: String
        var log: VisitorEventLog
        /// The conversation's recent messages by id: what a reply quotes.
        var messages: BoundedDictionary<String, ReplyReference>
        var streams: [ObjectIdentifier: AttachedStream] = [:]
        var lastUsed: Date
        /// When `lastUsed` was last written to the store.
        var lastStored: Date
        var closed = false

        /// The name a message of `sender` is shown under: the visitor's or the bot's.
        func name(of sender: String, visitor: String) -> String { sender == visitor ? name : botName }
    }

    /// An open stream and the last message it was given: a message at or before it is not
    /// written again, whichever way it comes (the hub's history at attach, then the pump,
    /// which after a crash catches up from the hub's last saved cursor, behind the stream).
    private struct AttachedStream {
        let stream: HTTPServerStream
        var sentThrough: Int64

        /// Writes `event` unless it is a message this stream already has (a message's position
        /// counts no reactions); false once the stream has ended.
        mutating func send(_ event: ServerSentEvent, at position: VisitorEventPosition) -> Bool {
            if position.reaction == 0 {
                guard position.seq > sentThrough else { return true }
                sentThrough = position.seq
            }
            return stream.send(event)
        }
    }

    /// `restoredAfter`: for a session restored after a restart, the conversation's last
    /// message then. The log starts after it: what came before is the hub's history, which a
    /// stream is answered from when it resumes from further back.
    init(secret: String, visitor: String, name: String, bot: String, botName: String, transport: HubTransport,
         receiver: HubTransport, registry: ContentRegistry, logCapacity: Int, restoredAfter: Int64?, now: Date) {
        self.secret = secret
        self.visitor = visitor
        self.bot = bot
        self.transport = transport
        self.receiver = receiver
        encoder = VisitorEventEncoder(registry: registry, visitor: visitor)
        state = Mutex(State(name: name, botName: botName, log: VisitorEventLog(capacity: logCapacity, restoredAfter: restoredAfter),
                            messages: BoundedDictionary(capacity: logCapacity), lastUsed: now, lastStored: now))
    }

    /// The conversation as the visitor's side names it.
    var channel: Channel { .person(bot) }

    var name: String { state.withLock { $0.name } }

    /// The client message number of a visitor's send: derived from the `client_id` the
    /// visitor gave (so the hub knows a repeat, across restarts too: the visitor is the same),
    /// else a new one.
    func messageID(clientID: String?) -> UUID {
        guard let clientID else { return messageIDs.withLock { $0.next() } }
        return UUID(namespace: Self.clientIDNamespace, name: visitor + "\u{0}" + clientID)
    }

    /// Whether `text` is a `client_id` the chat takes: 1 to 128 ASCII letters, digits, `.`,
    /// `_`, `:` and `-` (a UUID, a counter, a timestamp with a tab's number).
    static func isClientID(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x3A || byte == 0x2D
        }
    }

    /// The namespace of the message numbers derived from visitors' client ids.
    private static let clientIDNamespace = UUID(uuidString: "6F1C3A52-9D0B-4E7A-8C21-3B5D7E9F0A14")!

    /// Starts taking the hub's events for the visitor.
    func start(retryEvery: Duration, clock: any ParleyClock) {
        let task = Task { [weak self] in
            while let self, !self.isClosed {
                do {
                    // In batches: one wake-up of the pump for all that came while it worked.
                    for await batch in try await self.receiver.connectBatched() {
                        for event in batch { self.take(event) }
                    }
                } catch {
                    // The hub refused (closing down): try again later unless the session ended.
                }
                guard !self.isClosed else { return }
                try? await clock.sleep(for: retryEvery)
            }
        }
        pump.withLock { $0 = task }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Ends the session: its streams finish, and the pump stops (which ends its hub stream).
    func close() {
        state.withLock { $0.closed = true }
        dropStreams()
        pump.withLock { $0 }?.cancel()
    }

    /// Marks the session used now (it expires only after a quiet `expire`); true when the
    /// store should hear of it (once a minute at most: a write per request would cost more
    /// than the request).
    func touch(at now: Date) -> Bool {
        state.withLock { state in
            state.lastUsed = now
            guard now.timeIntervalSince(state.lastStored) >= 60 else { return false }
            state.lastStored = now
            return true
        }
    }

    /// Whether the session has been unused since `cutoff`: no request, no open stream.
    func isIdle(since cutoff: Date) -> Bool {
        state.withLock { $0.streams.isEmpty && $0.lastUsed < cutoff }
    }

    func rename(_ name: String) { state.withLock { $0.name = name } }

    /// What a reply to `messageID` quotes, if it is one of the conversation's recent messages.
    func replyReference(to messageID: String) -> ReplyReference? {
        state.withLock { $0.messages[messageID] }
    }

    /// One event from the hub: kept and sent when it belongs to the conversation.
    private func take(_ event: TransportEvent) {
        switch event {
        case .message(let envelope) where envelope.channel == channel:
            // Encoded outside the lock: the streams' writers wait on it, not on the encoding.
            let data = encoder.message(envelope, senderName: state.withLock { $0.name(of: envelope.sender, visitor: visitor) })
            state.withLock { state in
                guard let position = state.log.positionOfMessage(seq: envelope.seq) else { return }
                _ = state.messages.set(ReplyReference(messageID: envelope.id, seq: envelope.seq, sender: envelope.sender,
                                                      quoted: envelope.payload), for: envelope.id)
                Self.publish(Self.messageEvent(data, at: position), at: position, in: &state)
            }
        case .reaction(let reaction) where reaction.channel == channel:
            let data = encoder.reaction(reaction)
            state.withLock { state in
                let position = state.log.positionOfReaction()
                Self.publish(ServerSentEvent(id: position.description, event: "reaction", data: data), at: position, in: &state)
            }
        default:
            break
        }
    }

    /// A message's event: its data at its position, as the log keeps it and a replay from the
    /// history sends it.
    private static func messageEvent(_ data: String, at position: VisitorEventPosition) -> ServerSentEvent {
        ServerSentEvent(id: position.description, event: "message", data: data)
    }

    private static func publish(_ event: ServerSentEvent, at position: VisitorEventPosition, in state: inout State) {
        state.log.append(event, at: position)
        // In place (the values are mutable), and a list only of streams that ended.
        var ended: [ObjectIdentifier] = []
        for index in state.streams.indices where !state.streams.values[index].send(event, at: position) {
            ended.append(state.streams.keys[index])
        }
        for key in ended { state.streams[key] = nil }
    }

    /// Attaches `stream`: first everything after `after` (from the log, or from the hub's
    /// history when the log no longer reaches that far back), then every new event.
    ///
    /// The log may drop entries while the history is read (the conversation goes on): what
    /// it dropped is then in neither, so the history is read again from where it ended. A
    /// conversation that outruns `historyReads` reads ends the stream instead; the browser
    /// resumes from the last event it got, and nothing is lost.
    func attach(_ stream: HTTPServerStream, after: VisitorEventPosition?) async {
        var history: [Envelope] = []
        // What the log had dropped when the history was last read (`.some(nil)`: nothing yet).
        var readWhenDropped: VisitorEventPosition?? = nil
        for _ in 0..<Self.historyReads {
            switch state.withLock({ state in attach(stream, after: after, history: history, readWhenDropped: readWhenDropped, in: &state) }) {
            case .attached:
                let key = ObjectIdentifier(stream)
                stream.onClose { [weak self] _ in self?.state.withLock { _ = $0.streams.removeValue(forKey: key) } }
                return
            case .closed:
                stream.finish()
                return
            case .readHistory(let dropped):
                readWhenDropped = .some(dropped)
                history += await self.history(after: history.last?.seq ?? after?.seq ?? 0)
            }
        }
        stream.finish()
    }

    private enum Attaching {
        case attached, closed
        /// The history must be read (again): the log had dropped through this position.
        case readHistory(droppedThrough: VisitorEventPosition?)
    }

    /// Sends `history` and the log's events after it to `stream` and keeps it, unless the
    /// log dropped entries the history read so far does not hold.
    private func attach(_ stream: HTTPServerStream, after: VisitorEventPosition?, history: [Envelope],
                        readWhenDropped: VisitorEventPosition??, in state: inout State) -> Attaching {
        guard !state.closed else { return .closed }
        let covered = state.log.covers(after: after)
        if !covered, readWhenDropped.map({ $0 != state.log.droppedThrough }) ?? true {
            return .readHistory(droppedThrough: state.log.droppedThrough)
        }
        _ = stream.send(ServerSentEvent(data: "", retry: 1_000))
        var attachedStream = AttachedStream(stream: stream, sentThrough: after?.seq ?? 0)
        var resumeAfter = after
        let firstKept = state.log.entries.first?.position
        for envelope in history where !covered {
            let position = VisitorEventPosition(seq: envelope.seq, reaction: 0)
            guard firstKept.map({ position < $0 }) ?? true else { break }
            let data = encoder.message(envelope, senderName: state.name(of: envelope.sender, visitor: visitor))
            _ = attachedStream.send(Self.messageEvent(data, at: position), at: position)
            resumeAfter = position
        }
        for entry in state.log.events(after: resumeAfter) where !attachedStream.send(entry.event, at: entry.position) { return .closed }
        state.streams[ObjectIdentifier(stream)] = attachedStream
        return .attached
    }

    /// How often a resuming stream reads the history before it gives up and ends.
    static let historyReads = 4

    /// Ends the open streams; the session goes on.
    func dropStreams() {
        let streams = state.withLock { state in
            defer { state.streams = [:] }
            return state.streams.values.map(\.stream)
        }
        for stream in streams { stream.finish() }
    }

    /// The conversation's messages after `seq` that the log no longer holds, from the hub, a
    /// page at a time (bounded: at most `maxHistory`).
    private func history(after seq: Int64) async -> [Envelope] {
        let firstKept = state.withLock { $0.log.entries.first?.position.seq } ?? .max
        var found: [Envelope] = []
        var last = seq
        while found.count < Self.maxHistory {
            guard let page = try? await transport.history(of: channel, after: last, limit: 500), let end = page.last else { break }
            found += page.prefix { $0.seq < firstKept }
            guard end.seq < firstKept, page.count == 500 else { break }
            last = end.seq
        }
        return found
    }

    /// The most messages a resumed stream gets from the history.
    static let maxHistory = 5_000

    /// Writes a keep-alive comment to every open stream (dropping those that have ended).
    func keepAlive() {
        state.withLock { state in
            for (key, attached) in state.streams where !attached.stream.keepAlive() { state.streams[key] = nil }
        }
    }
}
