import ParleyHub
import Testing

@Suite struct HubConfigurationTests {
    @Test func nonsenseSettingsAreClamped() {
        let limit = HubRateLimit(messagesPerSecond: -5, burst: 0)
        #expect(limit.messagesPerSecond == 0)
        #expect(limit.burst == 1)
        #expect(HubRateLimit(messagesPerSecond: .nan, burst: 2).messagesPerSecond == 0)
        #expect(HubConfiguration(eventBufferLimit: -1).eventBufferLimit == 1)
        #expect(HubConfiguration().payloadLimit == 1_048_576)
    }
}
