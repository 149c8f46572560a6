import Foundation
import ParleyCore

/// Name-based UUIDs (RFC 9562 version 5: SHA-1 of a namespace and a name).
///
/// Broadcasts derive every client message number from (job, recipient), and scheduled jobs
/// derive their id from (bot, schedule, fire time): the same inputs always give the same id,
/// so a send or a job repeated after a crash is recognised instead of duplicated.
public enum BroadcastUUID {
    /// The namespace of Parley's broadcast ids (itself a v5 id of "parley.broadcast" in the
    /// RFC's URL namespace, written out so it never changes).
    public static let namespace = UUID(uuidString: "5b0e3a58-6a47-5d5e-8a8b-6c2f0b1d2f4e") ?? UUID()

    /// The client message number of `target`'s message in broadcast `job`.
    public static func message(job: String, target: String) -> UUID {
        UUID(namespace: namespace, name: "message\u{0}\(job)\u{0}\(target)")
    }

    /// The id of the job a schedule starts for the run due at `fire`.
    public static func scheduledJob(bot: String, schedule: String, fire: Date) -> UUID {
        let seconds = Int64(fire.timeIntervalSince1970.rounded(.down))
        return UUID(namespace: namespace, name: "schedule\u{0}\(bot)\u{0}\(schedule)\u{0}\(seconds)")
    }
}
