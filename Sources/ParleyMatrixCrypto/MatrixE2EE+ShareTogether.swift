import Foundation
import ParleyCore
import ParleyMatrix

extension MatrixE2EE {
    /// Whether some device of `share`'s members may lack its session: a member whose devices
    /// are not known (or changed), or a known device it was not sent to. Local only: the
    /// answer of a room whose key went out already costs no request.
    func needsSharing(_ share: RoomShare, device: Device) async throws -> Bool {
        if try await !store.usersToQuery(among: share.members).isEmpty { return true }
        var devices: [String: [MatrixDevice]] = [:]
        for user in Set(share.members) { devices[user] = try await store.devices(of: user) }
        return try await !unshared(share, among: devices, device: device).isEmpty
    }

    /// Shares `share`'s key together with the other rooms' that wait meanwhile. The transport
    /// sends to many rooms at once, one room per call (a broadcast's direct rooms), so each
    /// call alone would cost a `/keys/query`, a `/keys/claim` and a `/sendToDevice` per
    /// recipient; here the rooms that arrive while a share is in flight go out in the next
    /// one, with one request of each kind for all of them (a group commit: no timer, no wait
    /// when nothing is in flight). A failed share fails every room in it (each send retries).
    func shareTogether(_ share: RoomShare, device: Device, client: MatrixClient) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            waitingShares.append((share, done))
            guard !sharing else { return }
            sharing = true
            Task { await self.shareWaiting(device: device, client: client) }
        }
    }

    /// Shares what waits, batch after batch, until nothing does.
    private func shareWaiting(device: Device, client: MatrixClient) async {
        // Bounded: each pass empties the queue, and only sends (each waiting once) refill it.
        while !waitingShares.isEmpty {
            let batch = waitingShares
            waitingShares = []
            // A room twice in a batch (a reaction beside a message) is shared once.
            var rooms: [RoomShare] = []
            for entry in batch where !rooms.contains(where: { $0.room == entry.share.room && $0.session.sessionID == entry.share.session.sessionID }) {
                rooms.append(entry.share)
            }
            do {
                try await share(rooms, device: device, client: client)
                for entry in batch { entry.done.resume() }
            } catch {
                for entry in batch { entry.done.resume(throwing: error) }
            }
        }
        sharing = false
    }
}
