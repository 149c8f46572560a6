import ParleyMatrix
import Synchronization

/// The speakers' connections a Matrix flow test opened, closed with the test.
final class OpenedTransports: Sendable {
    private let transports = Mutex<[MatrixTransport]>([])

    /// Remembers one.
    func add(_ transport: MatrixTransport) { transports.withLock { $0.append(transport) } }

    /// Every one opened so far.
    var all: [MatrixTransport] { transports.withLock { $0 } }
}
