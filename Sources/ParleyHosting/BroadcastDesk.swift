import ParleyBots
import ParleyCore

/// What `parley broadcast` and `parley broadcasts` run on: the config's durable jobs (its
/// storage, its global cap) and the bots' accounts on its transport, with no bot running.
public struct BroadcastDesk: Sendable {
    /// The jobs.
    public let service: BroadcastService
    /// Where state is kept.
    public let storage: HostStorage
    private let senders: any BroadcastSenders
    /// The store is this process's while the desk is open.
    private let lock: StoreLock?

    /// Opens the desk of `configFile` (only the config and its transport are read: a broken
    /// bot file elsewhere does not stop a broadcast). Errors are ready to print.
    public static func open(configFile: String, resolve: @escaping @Sendable (String) -> String,
                            environment: [String: String]) -> Result<BroadcastDesk, BroadcastError> {
        let config: HostConfig
        let transport: any TransportProvider
        switch HostLoader.loadConfig(configFile: configFile, resolve: resolve, environment: environment) {
        case .failure(let errors): return .failure(BroadcastError(.invalidConfig, errors.errors.map(\.description).joined(separator: "\n")))
        case .success(let loaded): (config, transport) = loaded
        }
        let storage = HostStorage(config: config, resolve: resolve)
        do {
            // A running `parley run` (or another broadcast) on this store is refused clearly:
            // two processes on one store misfile the hub's messages and run one job twice.
            let lock = try storage.lock(holder: "parley broadcast")
            let service = try storage.broadcastService(config: config, clock: SystemClock(), log: { _ in })
            let senders = try transport.broadcastSenders(storage: storage)
            return .success(BroadcastDesk(service: service, storage: storage, senders: senders, lock: lock))
        } catch let error as HostError {
            return .failure(BroadcastError(.storage, error.description))
        } catch let error as BroadcastError {
            return .failure(error)
        } catch {
            return .failure(BroadcastError(.storage, "cannot open the storage at \(storage.shownPath): \(error)"))
        }
    }

    /// The transport `bot` sends through.
    public func transport(for bot: String) throws(BroadcastError) -> any Transport {
        do {
            return try senders.transport(for: bot)
        } catch let error as BroadcastError {
            throw error
        } catch {
            throw BroadcastError(.storage, "cannot connect bot '\(bot)': \(error)")
        }
    }

    /// Releases the transport's resources (the embedded hub writes its cursors), then the store.
    public func close() async {
        await senders.close()
        lock?.release()
    }
}
