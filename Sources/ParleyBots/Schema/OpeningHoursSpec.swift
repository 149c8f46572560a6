import YAMLCoding
import Foundation

/// `hours:` of a hand-off queue — `{ timezone: Europe/Berlin, open: ["Mon-Fri 09:00-18:00"] }`:
/// when the queue is staffed, as written. `OpeningHours(spec:)` makes the working value.
///
/// Decoding checks the shape (both keys required, no others, `open` a list of strings); what
/// the strings mean is checked by `errors(in:)`, which validation calls, as it checks a
/// schedule's cron: an error thrown while decoding would hide the file's other problems.
public struct OpeningHoursSpec: YAMLNodeDecodable, Sendable {
    /// IANA time zone name, in which the entries are read.
    public var timezone: Located<String>
    /// Entries such as `Mon-Fri 09:00-18:00` (grammar: `OpeningHours`).
    public var open: Located<[Located<String>]>
    /// Where the `hours:` mapping starts.
    public var mark: Mark

    /// Reads `timezone` and `open` (both required); any other key is an unknown-key error.
    public init(yaml reader: NodeReader) throws {
        mark = reader.mark
        try reader.expectMapping()
        timezone = try reader.decode(Located<String>.self, forKey: "timezone")
        open = try reader.decode(Located<[Located<String>]>.self, forKey: "open")
    }

    /// Every problem of the values, each at its line and column (inside an entry, at the part
    /// that is wrong): an unknown time zone, an empty `open`, an entry that does not parse,
    /// and time ranges that overlap on a day. Empty when `OpeningHours(spec:)` succeeds.
    public func errors(in source: SourceFile) -> [YAMLError] {
        var errors: [YAMLError] = []
        if TimeZone(identifier: timezone.value) == nil {
            errors.append(source.error(at: timezone.mark, OpeningHours.unknownTimeZone(timezone.value)))
        }
        for problem in OpeningHours.week(of: open.value.map(\.value)).problems {
            if let index = problem.entry {
                let entry = open.value[index]
                errors.append(source.error(at: ScalarPosition.mark(of: problem.offset, in: entry, source: source), problem.message))
            } else {
                errors.append(source.error(at: open.mark, problem.message))
            }
        }
        return errors
    }
}
