import ParleyCore
import ParleyTesting

/// Reads `stream` until `count` messages arrived (other events are skipped).
func collectMessages(_ stream: AsyncStream<ChatEvent>, count: Int, seconds: Double = 30) async throws -> [Message] {
    try await withTimeout(seconds: seconds) {
        var messages: [Message] = []
        for await event in stream {
            if case .message(let message) = event { messages.append(message) }
            if messages.count >= count { break }
        }
        return messages
    }
}

/// Reads `stream` until an event matches `predicate`; returns it.
func firstEvent(_ stream: AsyncStream<ChatEvent>, seconds: Double = 30,
                where predicate: @escaping @Sendable (ChatEvent) -> Bool) async throws -> ChatEvent {
    try await withTimeout(seconds: seconds) {
        for await event in stream where predicate(event) { return event }
        throw TimeoutError(what: "the awaited event", seconds: 0)
    }
}
