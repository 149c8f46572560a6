import Foundation
import ParleyStore

/// What `parley cluster` shows of a shared database: the processes that report themselves,
/// and which of them holds each bot's lease, read at one moment of the database's clock.
public struct ClusterStatus: Sendable {
    public struct Process: Sendable, Equatable {
        public var id: String
        public var host: String
        public var pid: Int64
        public var upSeconds: Double
        public var seenSecondsAgo: Double
        /// The bots whose leases it holds now.
        public var bots: [String]
    }

    public struct Bot: Sendable, Equatable {
        public var id: String
        /// The holder, nil when the lease is free or expired (the next process to look takes it).
        public var holder: String?
        public var generation: Int64
        public var heldForSeconds: Double
        public var renewedSecondsAgo: Double
        /// Seconds until it expires unless renewed; negative once expired.
        public var expiresInSeconds: Double
    }

    public var processes: [Process]
    public var bots: [Bot]

    /// The status of the shared database of `storage`.
    /// - Throws: `HostError` when the storage is not PostgreSQL or cannot be reached.
    public static func read(_ storage: HostStorage) throws(HostError) -> ClusterStatus {
        guard storage.isPostgres else {
            throw HostError("the storage is \(storage.shownPath), a SQLite file: one process runs every bot; "
                            + "several processes share a PostgreSQL database (storage.url)")
        }
        let leases: [LeaseStore.Lease], members: [LeaseStore.Member]
        do {
            let store = try LeaseStore(location: storage.path)
            (leases, members) = (try store.leases(), try store.members())
        } catch {
            throw HostError("cannot read the cluster at \(storage.shownPath): \(error)")
        }
        let bots = leases.map { lease in
            Bot(id: lease.name, holder: lease.isLive ? lease.holder : nil, generation: lease.generation,
                heldForSeconds: lease.now - lease.acquiredAt, renewedSecondsAgo: lease.now - lease.renewedAt,
                expiresInSeconds: lease.expiresAt - lease.now)
        }
        let processes = members.map { member in
            Process(id: member.id, host: member.host, pid: member.pid, upSeconds: member.now - member.startedAt,
                    seenSecondsAgo: member.now - member.seenAt, bots: bots.filter { $0.holder == member.id }.map(\.id))
        }
        return ClusterStatus(processes: processes, bots: bots)
    }
}
