import Testing
import ParleyBots

@Suite struct DurationAndRateTests {
    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("2s", .seconds(2)), ("10m", .seconds(600)),
        ("1h", .seconds(3600)), ("1d", .seconds(86_400)), ("1h30m", .seconds(5400)), ("0s", .zero),
        ("1d2h3m4s5ms", .seconds(93_784) + .milliseconds(5)), ("007s", .seconds(7)),
    ])
    func parsesDurations(text: String, expected: Duration) throws {
        #expect(try DurationFormat.parse(text) == expected)
    }

    @Test(arguments: [
        ("", "empty duration: expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d", 0),
        ("10", "invalid duration '10': missing unit; expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d", 2),
        ("10 minutes", "invalid duration '10 minutes': unexpected ' '; expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d", 2),
        ("5w", "invalid duration '5w': unknown unit 'w'; expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d", 1),
        ("m", "invalid duration 'm': expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d", 0),
        ("30m1h", "invalid duration '30m1h': units must go from largest to smallest, each once", 4),
        // Texts the ASCII fast path hands to the general one: the same messages and offsets.
        ("10M", "invalid duration '10M': unknown unit 'M'; expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d", 2),
        ("10m ", "invalid duration '10m ': expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d", 3),
        ("10mé", "invalid duration '10mé': unknown unit 'mé'; expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d", 2),
        ("1m1m", "invalid duration '1m1m': units must go from largest to smallest, each once", 3),
        ("99999999999s", "duration '99999999999s' is too large", 0),
    ])
    func rejectsBadDurations(text: String, message: String, offset: Int) {
        #expect(throws: ValueSyntaxError(message, offset: offset)) { try DurationFormat.parse(text) }
    }

    @Test func formatsDurations() {
        #expect(DurationFormat.format(.seconds(5400)) == "1h30m")
        #expect(DurationFormat.format(.milliseconds(1500)) == "1s500ms")
        #expect(DurationFormat.format(.zero) == "0s")
    }

    @Test func parsesRates() throws {
        #expect(try Rate(parsing: "20/s") == Rate(count: 20, per: .seconds(1)))
        #expect(try Rate(parsing: "600/m").perSecond == 10)
        #expect(try Rate(parsing: "1000/h").description == "1000/h")
    }

    @Test(arguments: [
        ("20", "invalid rate '20': expected COUNT/UNIT with a unit of s, m or h, like 20/s or 600/m", 0),
        ("0/s", "invalid rate '0/s': the count must be a whole number above 0; expected COUNT/UNIT with a unit of s, m or h, like 20/s or 600/m", 0),
        ("20/d", "invalid rate '20/d': unknown unit 'd'; expected COUNT/UNIT with a unit of s, m or h, like 20/s or 600/m", 3),
    ])
    func rejectsBadRates(text: String, message: String, offset: Int) {
        #expect(throws: ValueSyntaxError(message, offset: offset)) { try Rate(parsing: text) }
    }
}
