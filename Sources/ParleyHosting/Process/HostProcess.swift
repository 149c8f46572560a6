import Foundation
import Synchronization

/// `parley run` as a process: the running host, its operations listener (bound before the bots
/// start: an address that is taken stops the run before anyone is answered, and `/healthz`
/// tells "connecting" while they connect), SIGINT and SIGTERM ending the run and SIGHUP
/// reloading it, systemd told and its watchdog fed, and the shutdown in order. The CLI only
/// parses arguments, chooses where log lines go, and prints.
public final class HostProcess: Sendable {
    public let running: RunningHost
    /// The operations listener's address (`http.listen`), if one is configured.
    public var url: String? { listener?.url }
    private let listener: OperationsListener?
    private let signals: SignalWaiter
    private let hangups: HangupReloader
    private let systemd: SystemdNotifier
    private let watchdog = Mutex<Task<Void, Never>?>(nil)

    /// Makes the host of `loaded` and binds its listener; the signal handlers are in place
    /// when it returns, so a signal that comes once the bots are up finds them. Throws (with
    /// the host shut down) when either cannot be made.
    public static func make(_ loaded: LoadedHost, options: RunningHost.Options,
                            environment: [String: String]) async throws(HostError) -> HostProcess {
        let running = try await RunningHost.make(loaded, options: options)
        let listener: OperationsListener?
        do {
            listener = try OperationsListener.start(running, http: loaded.config?.http)
        } catch {
            await running.shutdown()
            throw error
        }
        return HostProcess(running: running, listener: listener, systemd: SystemdNotifier(environment: environment))
    }

    private init(running: RunningHost, listener: OperationsListener?, systemd: SystemdNotifier) {
        self.running = running
        self.listener = listener
        self.systemd = systemd
        signals = SignalWaiter()
        hangups = HangupReloader(running)
    }

    /// Starts the bots and tells systemd the host is ready — also when some bots did not
    /// start: the host runs, and which did not is in the log and `/healthz`.
    public func start() async {
        if let url { log("listening", ["url": url]) }
        let started = await running.start()
        systemd.ready(status: started.count == running.bots.count ? "\(started.count) bots running"
                                                                   : "\(started.count) of \(running.bots.count) bots running")
        let systemd = systemd
        watchdog.withLock { $0 = Task { await systemd.feedWatchdog() } }
    }

    /// Ends the run as SIGINT or SIGTERM does (the chat console was left).
    public func end() { signals.cancel() }

    /// Returns once SIGINT or SIGTERM came (or `end()`), after the shutdown: systemd told,
    /// reloads and the watchdog stopped, the listener closed, then the host shut down.
    public func runUntilEnded() async {
        await signals.wait()
        log("shutting down")
        systemd.stopping()
        hangups.stop()
        watchdog.withLock { $0 }?.cancel()
        listener?.stop()
        await running.shutdown()
    }

    private func log(_ event: String, _ fields: [String: String] = [:]) {
        running.host.logger.log(.info, at: running.host.clock.now(), bot: nil, event, fields)
    }
}
