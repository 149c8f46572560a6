import Dispatch
import Foundation

/// SIGHUP reloads the host (`systemctl reload`, `kill -HUP`): the result is in the log, as
/// for `POST /api/v1/reload`. Reloads queue up; none runs after `stop()`.
// @unchecked: the Dispatch source is set once in init and only cancelled in stop/deinit;
// Dispatch sources are thread-safe, they just are not annotated.
final class HangupReloader: @unchecked Sendable {
    private let source: any DispatchSourceSignal

    init(_ running: RunningHost) {
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { [weak running] in
            guard let running else { return }
            running.host.logger.log(.info, at: running.host.clock.now(), bot: nil, "reload asked (SIGHUP)")
            Task { _ = await running.reload() }
        }
        source.resume()
    }

    func stop() { source.cancel() }

    deinit { source.cancel() }
}
