/// Runs operations one after another per key and concurrently across keys: Synapse persists
/// the events of one room in order anyway, so sends to one room are serialised here (keeping
/// their order) while different rooms proceed in parallel.
actor SerialQueues {
    private var tails: [String: Task<Void, Never>] = [:]

    /// Runs `operation` after every operation queued earlier under `key` has finished.
    func run<T: Sendable>(_ key: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let previous = tails[key]
        let task = Task<T, any Error> {
            await previous?.value
            return try await operation()
        }
        let tail = Task<Void, Never> { _ = try? await task.value }
        tails[key] = tail
        defer { Task { await self.forget(key, tail) } }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Drops the finished tail so the table does not grow with every room ever used.
    private func forget(_ key: String, _ tail: Task<Void, Never>) async {
        await tail.value
        if tails[key] == tail { tails[key] = nil }
    }
}
