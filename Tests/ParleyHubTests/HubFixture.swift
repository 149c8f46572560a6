import Foundation
import ParleyTesting
import ParleyCore
import ParleyHub
import Testing

/// A hub on a virtual clock with users alice, bob and carol (and any extra ones); a SQLite
/// hub lives in its own temporary directory, removed when the fixture goes.
final class HubFixture: Sendable {
    let clock = ManualClock()
    let directory: URL
    let path: String
    let configuration: HubConfiguration
    let hub: Hub

    init(_ storage: Storage, configuration: HubConfiguration = HubConfiguration(), users: [String] = ["alice", "bob", "carol"]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-hub-\(UUID().uuidString)")
        path = storage == .memory ? ":memory:" : directory.appendingPathComponent("hub.sqlite").path
        self.configuration = configuration
        hub = try Hub(path: path, clock: clock, configuration: configuration)
        for user in users { try hub.addUser(Profile(id: user, name: user.capitalized)) }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A second hub on the same file (after `hub.close()`), as after a restart.
    func reopen() throws -> Hub {
        try Hub(path: path, clock: clock, configuration: configuration)
    }

    /// A transport of `user` with its stream being recorded.
    func online(_ user: String) async throws -> (HubTransport, EventRecorder) {
        let transport = try hub.connect(user: user)
        return (transport, EventRecorder(try await transport.connect()))
    }
}

/// A text payload as the core SDK encodes it.
func text(_ value: String) -> JSONValue { ["type": 1, "text": .string(value)] }

extension Envelope {
    /// The text of a text payload.
    var text: String? { payload["text"]?.stringValue }
}

/// Waits (bounded, without sleeping) until a send is parked on the virtual clock.
func waitUntilParked(_ clock: ManualClock) async throws {
    for _ in 0..<100_000 where clock.sleeperCount == 0 { await Task.yield() }
    try #require(clock.sleeperCount > 0)
}
