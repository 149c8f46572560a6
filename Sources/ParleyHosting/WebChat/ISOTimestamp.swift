import Foundation
import Glibc

/// `2026-12-02T10:00:00Z` for a date, in UTC, to the second: what every event of the visitor's
/// stream carries. `Date.formatted(.iso8601)` builds a formatter's state each call and costs
/// more than the rest of the event's encoding.
enum ISOTimestamp {
    static func string(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        func digits(_ value: Int32, _ count: Int) {
            var divisor: Int32 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            // Bounded: `count` digits.
            while divisor > 0 {
                bytes.append(UInt8(48 + rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4)
        bytes.append(45)
        digits(parts.tm_mon + 1, 2)
        bytes.append(45)
        digits(parts.tm_mday, 2)
        bytes.append(84)
        digits(parts.tm_hour, 2)
        bytes.append(58)
        digits(parts.tm_min, 2)
        bytes.append(58)
        digits(parts.tm_sec, 2)
        bytes.append(90)
        return String(decoding: bytes, as: UTF8.self)
    }
}
