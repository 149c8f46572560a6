import Foundation
import Glibc

/// A client of a streamed answer over a raw socket: `HTTPClient` (libcurl) hands over a body
/// only once it is complete. It undoes the chunked encoding as bytes come and splits the body
/// into Server-Sent Events (blocks ended by a blank line). Blocking, every read bounded by the
/// connection's receive timeout: use it inside `offPool`, one thread at a time.
///
/// `@unchecked Sendable`: handed from one `offPool` thread to the next, never shared at once.
public final class EventStreamClient: @unchecked Sendable {
    public let connection: RawConnection
    /// Received and not yet de-chunked.
    private var raw: [UInt8] = []
    /// De-chunked body not yet returned as events.
    private var body: [UInt8] = []
    private var headRead = false
    /// One read's bytes (kept: a benchmark reads thousands of events a second through it).
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    /// The last chunk (size 0) came: the answer ended properly.
    public private(set) var finished = false
    /// The server closed (or reset) the connection, or a read timed out.
    public private(set) var closed = false

    public init(port: Int, timeoutSeconds: Int = 5) throws {
        connection = try RawConnection(port: port, timeoutSeconds: timeoutSeconds)
    }

    /// Sends a GET of `path` and reads the answer's head: its status line and headers
    /// (lower-cased), or nil if none came.
    public func get(_ path: String, headers: String = "") -> String? {
        guard connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\(headers)\r\n") else { return nil }
        // Bounded: each turn reads at least a byte or ends.
        while !headRead {
            if let end = Self.find([13, 10, 13, 10], in: raw)?.upperBound {
                let head = String(decoding: raw[..<end], as: UTF8.self).lowercased()
                raw.removeFirst(end)
                headRead = true
                dechunk()
                return head
            }
            guard receive() else { return nil }
        }
        return nil
    }

    /// The next event, without its blank line; nil if the answer or the connection ended first.
    public func nextEvent() -> String? {
        // Bounded: each turn takes an event, reads at least a byte, or ends.
        while true {
            if let end = Self.find([10, 10], in: body) {
                let event = String(decoding: body[..<end.lowerBound], as: UTF8.self)
                body.removeFirst(end.upperBound)
                return event
            }
            guard !finished, receive() else { return nil }
        }
    }

    /// Reads until the answer ends (`finished`) or the connection does (`closed`).
    public func readToEnd() {
        // Bounded: each turn reads at least a byte or ends.
        while !finished, receive() {}
    }

    public func close() { connection.close() }

    /// One read, de-chunked into `body`; false once the connection ended.
    private func receive() -> Bool {
        let count = recv(connection.fd, &buffer, buffer.count, 0)
        guard count > 0 else {
            closed = true
            return false
        }
        raw += buffer[0..<count]
        if headRead { dechunk() }
        return true
    }

    /// Moves every complete chunk from `raw` to `body`.
    private func dechunk() {
        // Bounded: each turn removes a chunk from `raw`, or stops.
        while !finished, let line = Self.find([13, 10], in: raw) {
            let sizeText = String(decoding: raw[..<line.lowerBound], as: UTF8.self).prefix { $0 != ";" }
            guard let size = Int(sizeText, radix: 16) else {
                closed = true
                return
            }
            if size == 0 {
                // The last chunk, then no trailers: an empty line.
                guard raw.count >= line.upperBound + 2 else { return }
                raw.removeFirst(line.upperBound + 2)
                finished = true
                return
            }
            guard raw.count >= line.upperBound + size + 2 else { return }
            body += raw[line.upperBound..<(line.upperBound + size)]
            raw.removeFirst(line.upperBound + size + 2)
        }
    }

    /// Where `pattern` first occurs in `bytes`: a plain loop over the bytes (the generic
    /// `firstRange(of:)` costs a benchmark more than the server spends answering).
    public static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        return bytes.withUnsafeBufferPointer { haystack in
            pattern.withUnsafeBufferPointer { needle in
                var index = 0
                let last = haystack.count - needle.count
                // Bounded by the haystack's length.
                while index <= last {
                    if haystack[index] == first {
                        var offset = 1
                        while offset < needle.count && haystack[index + offset] == needle[offset] { offset += 1 }
                        if offset == needle.count { return index..<(index + needle.count) }
                    }
                    index += 1
                }
                return nil
            }
        }
    }
}
