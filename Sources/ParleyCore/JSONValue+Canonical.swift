/// A value with no Matrix canonical JSON form: a number that is not an integer in
/// [-(2^53)+1, 2^53-1] (what signed Matrix objects may hold).
public struct CanonicalJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The number as it was found.
    public let number: String
    public var description: String { "\(number) has no canonical JSON form (only integers up to 2^53-1 in magnitude)" }
}

extension JSONValue {
    /// The largest integer magnitude canonical JSON allows (2^53 - 1: exact in every JSON reader).
    static let canonicalIntegerLimit: Int64 = (1 << 53) - 1

    /// Matrix canonical JSON (the spec's "Signing JSON"), the bytes signatures are made over:
    /// `compactJSON()`'s writer — no whitespace, UTF-8 as is, the shortest escapes — with keys
    /// ordered by Unicode code point, and numbers written as integers (`-0` and `1e10` as `0`
    /// and `10000000000`). A fraction or an integer beyond 2^53-1 throws ``CanonicalJSONError``.
    public func canonicalJSON() throws(CanonicalJSONError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        try write(into: &bytes, canonical: true)
        return String(decoding: bytes, as: UTF8.self)
    }
}
