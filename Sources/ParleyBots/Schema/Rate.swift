/// A send rate such as `20/s` or `600/m`: at most `count` messages per `per`.
public struct Rate: Sendable, Hashable, CustomStringConvertible {
    /// Messages allowed per period.
    public var count: Int
    /// The period.
    public var per: Duration

    /// What a valid rate looks like, for error messages.
    public static let expected = "expected COUNT/UNIT with a unit of s, m or h, like 20/s or 600/m"

    /// Creates a rate.
    public init(count: Int, per: Duration) {
        self.count = count
        self.per = per
    }

    /// Parses `20/s`, `600/m`, `1000/h`.
    public init(parsing text: String) throws(ValueSyntaxError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw ValueSyntaxError("invalid rate '\(text)': \(Rate.expected)") }
        let countText = parts[0].trimmingSpaces
        guard let count = Int(countText), count > 0, countText.allSatisfy(\.isASCII) else {
            throw ValueSyntaxError("invalid rate '\(text)': the count must be a whole number above 0; \(Rate.expected)")
        }
        let periods: [Substring: Duration] = ["s": .seconds(1), "m": .seconds(60), "h": .seconds(3600)]
        guard let period = periods[parts[1].trimmingSpaces] else {
            throw ValueSyntaxError("invalid rate '\(text)': unknown unit '\(parts[1])'; \(Rate.expected)",
                                   offset: parts[0].unicodeScalars.count + 1)
        }
        self.init(count: count, per: period)
    }

    /// Messages per second.
    public var perSecond: Double {
        let (seconds, attoseconds) = per.components
        return Double(count) / (Double(seconds) + Double(attoseconds) / 1e18)
    }

    public var description: String {
        switch per {
        case .seconds(1): return "\(count)/s"
        case .seconds(60): return "\(count)/m"
        case .seconds(3600): return "\(count)/h"
        default: return "\(count)/\(DurationFormat.format(per))"
        }
    }
}

extension Substring {
    /// The text without leading and trailing spaces (no Foundation needed).
    var trimmingSpaces: Substring {
        var result = self
        while result.first == " " { result.removeFirst() }
        while result.last == " " { result.removeLast() }
        return result
    }
}
