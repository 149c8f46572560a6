import Foundation
import ParleyMetrics
import ParleyTesting
import Testing

/// The registry's text against the exposition format, by exact text and by `promtool`.
@Suite struct MetricsExpositionTests {
    @Test func countersGaugesAndHistogramsAreWrittenAsTheFormatSays() async {
        let registry = MetricsRegistry()
        let received = registry.counter("parley_messages_received_total", help: "Messages received.", labels: ["bot"])
        let depth = registry.gauge("parley_outbox_depth", help: "Messages waiting.", labels: ["bot"])
        let latency = registry.histogram("parley_answer_latency_seconds", help: "Message to answer.", labels: ["bot"],
                                         buckets: [0.1, 0.5, 1])
        received.labels("support").increment()
        received.labels("support").increment(by: 2)
        received.labels("news").increment()
        depth.labels("support").set(4)
        depth.labels("support").add(-1.5)
        for seconds in [0.05, 0.3, 0.3, 2] { latency.labels("support").observe(seconds) }
        let text = await registry.exposition()
        #expect(text == """
            # HELP parley_messages_received_total Messages received.
            # TYPE parley_messages_received_total counter
            parley_messages_received_total{bot="news"} 1
            parley_messages_received_total{bot="support"} 3
            # HELP parley_outbox_depth Messages waiting.
            # TYPE parley_outbox_depth gauge
            parley_outbox_depth{bot="support"} 2.5
            # HELP parley_answer_latency_seconds Message to answer.
            # TYPE parley_answer_latency_seconds histogram
            parley_answer_latency_seconds_bucket{bot="support",le="0.1"} 1
            parley_answer_latency_seconds_bucket{bot="support",le="0.5"} 3
            parley_answer_latency_seconds_bucket{bot="support",le="1"} 3
            parley_answer_latency_seconds_bucket{bot="support",le="+Inf"} 4
            parley_answer_latency_seconds_sum{bot="support"} 2.65
            parley_answer_latency_seconds_count{bot="support"} 4

            """)
    }

    @Test func labelValuesAndHelpAreEscaped() async {
        let registry = MetricsRegistry()
        registry.counter("parley_x_total", help: "back\\slash and\nline", labels: ["job"]).labels("a\"b\\c\nd").increment()
        let text = await registry.exposition()
        #expect(text.contains(#"# HELP parley_x_total back\\slash and\nline"#))
        #expect(text.contains(#"parley_x_total{job="a\"b\\c\nd"} 1"#))
    }

    @Test func collectedFamiliesAreReadAtEachScrapeAndSorted() async {
        let registry = MetricsRegistry()
        let source = SourceValues()
        registry.collected("parley_broadcast_recipients", help: "Recipients by job and state.", kind: .gauge,
                           labels: ["job", "state"]) { source.samples }
        #expect(await registry.exposition() == """
            # HELP parley_broadcast_recipients Recipients by job and state.
            # TYPE parley_broadcast_recipients gauge

            """)
        source.samples = [MetricSample(["j2", "sent"], 3), MetricSample(["j1", "pending"], .infinity)]
        #expect(await registry.exposition().hasSuffix("""
            parley_broadcast_recipients{job="j1",state="pending"} +Inf
            parley_broadcast_recipients{job="j2",state="sent"} 3

            """))
    }

    @Test func familiesCollectedTogetherAreReadOncePerScrape() async {
        let registry = MetricsRegistry()
        let calls = registry.counter("parley_collect_calls_total", help: "Calls.")
        registry.collected([CollectedFamily("parley_a", help: "A.", kind: .gauge, labels: ["q"]),
                            CollectedFamily("parley_b", help: "B.", kind: .gauge)]) {
            calls.labels().increment()
            return [[MetricSample(["x"], 1)], [MetricSample([], 2)]]
        }
        let text = await registry.exposition()
        #expect(calls.labels().value == 1)
        #expect(text.hasSuffix("""
            # HELP parley_a A.
            # TYPE parley_a gauge
            parley_a{q="x"} 1
            # HELP parley_b B.
            # TYPE parley_b gauge
            parley_b 2

            """))
    }

    @Test func aChildIsCreatedOnceAndCountsFromManyTasks() async {
        let registry = MetricsRegistry()
        let sent = registry.counter("parley_messages_sent_total", help: "Sent.", labels: ["bot"])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<1000 { sent.labels("support").increment() } } }
        }
        #expect(sent.labels("support").value == 8000)
        #expect(sent.labels("support") === sent.labels("support"))
    }

    /// Prometheus's own checker accepts the text (`promtool`, Debian's `prometheus`, which
    /// `scripts/install-deps` installs).
    @Test func promtoolAcceptsTheExposition() async throws {
        let registry = MetricsRegistry()
        registry.counter("parley_messages_received_total", help: "Messages received.", labels: ["bot"]).labels("support").increment()
        registry.gauge("parley_build_info", help: "The build.", labels: ["version"]).labels("1.0").set(1)
        registry.histogram("parley_answer_latency_seconds", help: "Message to answer.", labels: ["bot"], buckets: [0.1, 1])
            .labels("support").observe(0.2)
        registry.collected("parley_outbox_depth", help: "Waiting.", kind: .gauge, labels: ["bot"]) { [MetricSample(["x\"y"], 2)] }
        let problems = try await Promtool.check(await registry.exposition())
        #expect(problems == "")
    }
}

/// What a collected family reads, changed by the test between scrapes.
final class SourceValues: @unchecked Sendable {
    // @unchecked: the test sets it between scrapes, never during one.
    var samples: [MetricSample] = []
}
