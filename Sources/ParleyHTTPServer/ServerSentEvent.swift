/// One Server-Sent Event as the `text/event-stream` format writes it (WHATWG HTML, "Server-sent
/// events"): fields of one line each, ended by a blank line.
public struct ServerSentEvent: Sendable, Equatable {
    /// What the browser keeps as the last event id and sends back as `Last-Event-ID` when it
    /// reconnects: where to resume.
    public var id: String?
    /// The event type (the browser's `addEventListener` name); nil: "message".
    public var event: String?
    /// The payload; a line break in it becomes one `data:` line per line, which the browser
    /// joins back with "\n".
    public var data: String
    /// How long the browser waits before reconnecting, in milliseconds.
    public var retry: Int?

    public init(id: String? = nil, event: String? = nil, data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    /// The event in the stream's format. A line break in `id` or `event` would end the field
    /// early and start another one the sender never meant, so they are left out (as is a NUL
    /// in `id`, which browsers ignore); "\r\n", "\r" and "\n" all break `data`, as they do
    /// for the browser.
    public var encoded: String {
        var text = ""
        if let event, !event.contains(where: \.isNewline) { text += "event: \(event)\n" }
        if let id, !id.contains(where: \.isNewline), !id.contains("\0") { text += "id: \(id)\n" }
        if let retry, retry >= 0 { text += "retry: \(retry)\n" }
        // Most data is one line (compact JSON escapes its line breaks): one scan of the bytes
        // instead of splitting the characters.
        if !data.utf8.contains(where: { $0 == 10 || $0 == 13 }) { return text + "data: \(data)\n\n" }
        for line in data.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            text += "data: \(line)\n"
        }
        return text + "\n"
    }
}

extension HTTPServerStream {
    /// Writes `event`; false once the stream has ended (see `write`).
    @discardableResult
    public func send(_ event: ServerSentEvent) -> Bool { write(event.encoded) }

    /// Writes a comment line, which browsers ignore: what an owner sends now and then so that a
    /// gone client is noticed and proxies keep a quiet connection open.
    @discardableResult
    public func keepAlive() -> Bool { write(": keep-alive\n\n") }
}
