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
            if let end = raw.firstRange(of: [13, 10, 13, 10])?.upperBound {
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
            if let end = body.firstRange(of: [10, 10]) {
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
        var buffer = [UInt8](repeating: 0, count: 65_536)
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
        while !finished, let line = raw.firstRange(of: [13, 10]) {
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
}
