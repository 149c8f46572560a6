import Foundation
import ParleyCore
import ParleyHub
import Synchronization
import Testing
import ParleyTesting

/// A real hub transport seen only through `send` (so `sendBatchByChannel` does the work),
/// counting the sends in flight at once.
final class InFlightCountingTransport: ForwardingTransport {
    let base: any Transport
    let inFlight = Atomic<Int>(0)
    let mostInFlight = Atomic<Int>(0)

    init(_ base: HubTransport) { self.base = base }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        let now = inFlight.add(1, ordering: .sequentiallyConsistent).newValue
        mostInFlight.max(now, ordering: .sequentiallyConsistent)
        defer { inFlight.subtract(1, ordering: .sequentiallyConsistent) }
        return try await base.send(message)
    }
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] { await sendEachInOrder(messages) }
}

@Suite struct TransportBatchByChannelTests {
    static let users = ["alice", "bob", "carol", "dave", "erin"]

    /// `count` messages to each of `recipients`, interleaved (bob 0, carol 0, …, bob 1, …).
    static func interleaved(_ recipients: [String], count: Int) -> [OutgoingEnvelope] {
        (0..<count).flatMap { index in
            recipients.map { OutgoingEnvelope(channel: .person($0), payload: TextContent("\($0) \(index)").encoded()) }
        }
    }

    static func texts(_ hub: Hub, between user: String, and other: String) throws -> [String] {
        try hub.messages(in: .person(user), seenBy: other).compactMap { $0.payload["text"]?.stringValue }
    }

    @Test(arguments: [1, 2, 16])
    func eachChannelKeepsItsOrderAndAFailingOneStopsAlone(concurrentChannels: Int) async throws {
        let setup = try HubSetup(users: Self.users)
        let transport = InFlightCountingTransport(try setup.hub.connect(user: "alice"))
        // Every send to carol fails with a transient error: her first is that failure, the rest
        // are not attempted; the other channels go on.
        setup.hub.failSends(to: .person("carol"), with: ParleyError(.serverError, "carol's room is down"))
        let recipients = ["bob", "carol", "dave", "erin"]
        let messages = Self.interleaved(recipients, count: 5)
        let results = try await withTimeout {
            await transport.sendBatchByChannel(messages, concurrentChannels: concurrentChannels)
        }
        #expect(results.count == messages.count)
        var carolCodes: [ParleyError.Code] = []
        for (message, result) in zip(messages, results) {
            switch result {
            case .success:
                #expect(message.channel != .person("carol"))
            case .failure(let error):
                #expect(message.channel == .person("carol"), "\(message.channel): \(error)")
                carolCodes.append(error.code)
            }
        }
        #expect(carolCodes == [.serverError, .notSent, .notSent, .notSent, .notSent])
        for user in ["bob", "dave", "erin"] {
            #expect(try Self.texts(setup.hub, between: "alice", and: user) == (0..<5).map { "\(user) \($0)" })
        }
        #expect(try Self.texts(setup.hub, between: "alice", and: "carol").isEmpty)
        // Receipts sit at their message's position: a channel's sequence numbers rise in input order.
        for user in ["bob", "dave", "erin"] {
            let seqs = zip(messages, results).compactMap { message, result in
                message.channel == .person(user) ? (try? result.get())?.seq : nil
            }
            #expect(seqs == seqs.sorted() && Set(seqs).count == 5)
        }
        #expect(transport.mostInFlight.load(ordering: .relaxed) <= concurrentChannels)
    }

    @Test func channelsAreSentConcurrentlyUpToTheLimit() async throws {
        let setup = try HubSetup(users: Self.users)
        let transport = InFlightCountingTransport(try setup.hub.connect(user: "alice"))
        // Every send waits a second on the virtual clock, so sends in flight pile up there.
        setup.hub.delaySends(by: .seconds(1))
        let recipients = ["bob", "carol", "dave", "erin"]
        let messages = Self.interleaved(recipients, count: 3)
        let batch = Task { await transport.sendBatchByChannel(messages, concurrentChannels: 2) }
        // 4 channels × 3 messages, two channels at a time in step: 6 rounds of exactly two
        // sends in flight (both asleep on the clock), each round released by one advance.
        for _ in 0..<6 {
            try await withTimeout { await setup.clock.waitForSleepers(2) }
            #expect(setup.clock.sleeperCount == 2)
            #expect(transport.inFlight.load(ordering: .sequentiallyConsistent) == 2)
            await setup.clock.advance(by: .seconds(1))
        }
        let results = try await withTimeout { await batch.value }
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(transport.mostInFlight.load(ordering: .relaxed) == 2)
        for user in recipients {
            #expect(try Self.texts(setup.hub, between: "alice", and: user) == (0..<3).map { "\(user) \($0)" })
        }
    }
}
