import Foundation
import ParleyBots
import ParleyCore

/// `http.web_chat` as the door uses it: checked values with the defaults filled in.
struct WebChatSettings: Sendable {
    /// The bots visitors may talk to.
    var bots: Set<String>
    /// Other origins whose pages may call the API (CORS).
    var origins: Set<String>
    var sessionRate: TokenBucket.Rate
    var addressRate: TokenBucket.Rate
    /// A session unused this long ends.
    var expire: Duration
    /// `limits.message_size`: the largest text a visitor may send, in UTF-8 bytes.
    var maxMessageBytes: Int
    /// Sessions held at once; past it a new one is refused (503) until some expire.
    var maxSessions = 10_000
    /// How many events of each conversation are kept for streams that reconnect; one that
    /// resumes from further back is answered from the hub's history.
    var eventLogCapacity = 1_000
    /// How often streams get a keep-alive comment and idle sessions are ended.
    var sweepEvery: Duration = .seconds(15)

    /// The settings of a config `parley check` passed (so every value parses).
    init(_ config: WebChatConfig, maxMessageBytes: Int) {
        bots = Set(config.bots.value.map(\.value))
        origins = Set((config.origins ?? []).map(\.value))
        func rate(_ text: String?, _ fallback: Rate) -> TokenBucket.Rate {
            let rate = text.flatMap { try? Rate(parsing: $0) } ?? fallback
            return TokenBucket.Rate(perSecond: rate.perSecond, burst: Double(rate.count))
        }
        sessionRate = rate(config.rate?.session?.value, WebChatConfig.defaultSessionRate)
        addressRate = rate(config.rate?.address?.value, WebChatConfig.defaultAddressRate)
        expire = config.expire.flatMap { try? DurationFormat.parse($0.value) } ?? WebChatConfig.defaultExpiry
        self.maxMessageBytes = maxMessageBytes
    }
}
