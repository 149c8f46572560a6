import YAMLCoding

/// `limits:` — what the host refuses to handle.
public struct LimitsConfig: Decodable, Sendable {
    /// Incoming messages larger than this (UTF-8 bytes of their text) are refused with a log
    /// line (`64KB` unless set).
    public var messageSize: Located<String>?

    enum CodingKeys: String, CodingKey { case messageSize = "message_size" }
}
