@testable import ParleyCore
import Testing

/// The client's connection life cycle alone: every event against every state, no transport,
/// no clock.
@Suite struct ChatClientConnectionStateMachineTests {
    typealias Machine = ChatClient.ConnectionStateMachine

    static func connected(reported: ConnectionState = .connected) -> Machine {
        var machine = Machine()
        expectTrue(machine.connect())
        expectTrue(machine.opened() == .receive)
        machine.transportReported(reported)
        return machine
    }

    static func reconnecting(failures: Int = 0) -> Machine {
        var machine = connected()
        expectTrue(machine.streamEnded(reconnects: true) == .reconnect)
        for _ in 0..<failures { _ = machine.attemptFailed(maxAttempts: .max) }
        return machine
    }

    @Test func connectOpensAndPublishesEachStep() {
        var machine = Machine()
        #expect(machine.state == .disconnected && machine.published == .disconnected)
        expectTrue(machine.connect())
        #expect(machine.state == .connecting && machine.published == .connecting)
        // Connecting or connected: a second connect has nothing to do.
        expectTrue(!machine.connect())
        expectTrue(machine.opened() == .receive)
        #expect(machine.state == .connected(shown: .connected))
        expectTrue(!machine.connect())
    }

    @Test func aFailedConnectIsDisconnectedAgain() {
        var machine = Machine()
        _ = machine.connect()
        machine.connectFailed()
        #expect(machine.state == .disconnected)
        // Only a connect under way fails: a connected client stays connected.
        var open = Self.connected()
        open.connectFailed()
        #expect(open.state == .connected(shown: .connected))
    }

    @Test func aDisconnectWhileOpeningClosesWhatOpened() {
        var machine = Machine()
        _ = machine.connect()
        expectTrue(machine.disconnect())
        expectTrue(machine.opened() == .close)
        #expect(machine.state == .disconnected)
        var reconnecting = Self.reconnecting()
        expectTrue(reconnecting.disconnect())
        expectTrue(reconnecting.opened() == .close)
    }

    @Test func theTransportsReportsAreShownWhileConnectedOnly() {
        var machine = Self.connected(reported: .reconnecting)
        #expect(machine.published == .reconnecting)
        machine.transportReported(.connected)
        #expect(machine.published == .connected)
        // Reported as down: the owner may connect again.
        machine.transportReported(.disconnected)
        expectTrue(machine.connect())
        var closed = Self.connected()
        _ = closed.disconnect()
        closed.transportReported(.connected)
        #expect(closed.state == .disconnected)
        var connecting = Machine()
        _ = connecting.connect()
        connecting.transportReported(.connected)
        #expect(connecting.state == .connecting)
    }

    @Test func aDropReconnectsWithAPolicyAndStaysDownWithout() {
        var machine = Self.connected()
        expectTrue(machine.streamEnded(reconnects: true) == .reconnect)
        #expect(machine.state == .reconnecting(failures: 0) && machine.isReconnecting)
        #expect(machine.published == .reconnecting)
        expectTrue(!machine.connect())
        var down = Self.connected()
        expectTrue(down.streamEnded(reconnects: false) == .stayDown)
        #expect(down.state == .dropped && down.published == .disconnected && !down.isReconnecting)
        // Reconnecting is the owner's call then.
        expectTrue(down.connect())
    }

    @Test func aStreamEndingThatIsNoDropChangesNothing() {
        var disconnected = Self.connected()
        _ = disconnected.disconnect()
        expectTrue(disconnected.streamEnded(reconnects: true) == .none)
        #expect(disconnected.state == .disconnected)
        var connecting = Machine()
        _ = connecting.connect()
        expectTrue(connecting.streamEnded(reconnects: true) == .none)
        #expect(connecting.state == .connecting)
        var reconnecting = Self.reconnecting(failures: 2)
        expectTrue(reconnecting.streamEnded(reconnects: true) == .none)
        #expect(reconnecting.state == .reconnecting(failures: 2))
        var dropped = Self.connected()
        _ = dropped.streamEnded(reconnects: false)
        expectTrue(dropped.streamEnded(reconnects: false) == .none)
        #expect(dropped.state == .dropped)
    }

    @Test func failedAttemptsCountUpToTheLimit() {
        var machine = Self.reconnecting()
        expectTrue(machine.attemptFailed(maxAttempts: 3) == .retry(attempt: 1))
        expectTrue(machine.attemptFailed(maxAttempts: 3) == .retry(attempt: 2))
        #expect(machine.published == .reconnecting)
        expectTrue(machine.attemptFailed(maxAttempts: 3) == .giveUp(attempt: 3))
        #expect(machine.state == .disconnected && !machine.isReconnecting)
        expectTrue(machine.attemptFailed(maxAttempts: 3) == .stop)
    }

    @Test func aSuccessfulAttemptConnectsAndTheNextDropStartsAtOne() {
        var machine = Self.reconnecting(failures: 4)
        expectTrue(machine.opened() == .receive)
        #expect(machine.state == .connected(shown: .connected))
        expectTrue(machine.streamEnded(reconnects: true) == .reconnect)
        expectTrue(machine.attemptFailed(maxAttempts: 10) == .retry(attempt: 1))
    }

    @Test func anAttemptFailingAfterDisconnectIsNotReported() {
        var machine = Self.reconnecting(failures: 1)
        expectTrue(machine.disconnect())
        expectTrue(machine.attemptFailed(maxAttempts: 2) == .stop)
        #expect(machine.state == .disconnected)
        var connected = Self.connected()
        expectTrue(connected.attemptFailed(maxAttempts: 2) == .stop)
        #expect(connected.state == .connected(shown: .connected))
    }

    @Test func disconnectTellsWhetherThereWasAConnectionToClose() {
        var idle = Machine()
        expectTrue(!idle.disconnect())
        var down = Self.connected()
        _ = down.streamEnded(reconnects: false)
        expectTrue(!down.disconnect())
        #expect(down.state == .disconnected)
        var open = Self.connected()
        expectTrue(open.disconnect())
        expectTrue(!open.disconnect())
    }

    @Test func theOutboxStartsOnceUntilClosed() {
        var machine = Self.connected()
        #expect(!machine.outboxStarted)
        machine.outboxDidStart()
        _ = machine.disconnect()
        #expect(machine.outboxStarted)
        machine.outboxDidStop()
        #expect(!machine.outboxStarted)
    }
}
