@testable import ParleyHub
import Testing

@Suite struct HubMessageIDTests {
    @Test(arguments: [(0, Int64(0)), (7, 1), (12, 345), (9, 10), (10, 99), (123_456, 9_999_999_999), (Int(Int32.max), Int64.max)])
    func idsReadBackAsTheirChannelAndSeq(channel: Int, seq: Int64) throws {
        let id = HubMessageID.make(channel: channel, seq: seq)
        #expect(id == "m\(channel).\(seq)")
        let parsed = try #require(HubMessageID.parse(id))
        #expect(parsed.channel == channel && parsed.seq == seq)
    }

    @Test func negativeNumbersAreWrittenAsInterpolationWould() {
        #expect(HubMessageID.make(channel: -3, seq: 5) == "m-3.5")
        #expect(HubMessageID.make(channel: 3, seq: -5) == "m3.-5")
    }
}
