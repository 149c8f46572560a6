// MARK: - Counting the transport events the client has finished with

extension ChatClient {
    /// Transport events the client has finished with since it was made, over every
    /// connection: each taken event counts once, whether it was dropped as a repeat, hidden,
    /// filtered out, failed to decode or was published, and only once the event handler (if
    /// one is set) has had what it raised and returned. A caller that knows how many events
    /// the transport handed over can tell when the client is done with them.
    public var processedEventCount: Int { processedEvents }

    /// Returns once `processedEventCount` reaches `count`, when the client closes, or when
    /// the calling task is cancelled. `count` should not exceed the events the transport has
    /// handed the client, or only those two end the wait.
    public func waitUntilProcessed(_ count: Int) async {
        guard processedEvents < count else { return }
        let id = processedWaiters.newID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if processedEvents >= count || Task.isCancelled {
                    continuation.resume()
                } else {
                    processedWaiters.add(id, target: count, continuation)
                }
            }
        } onCancel: {
            Task { await self.releaseProcessedWaiter(id) }
        }
    }

    private func releaseProcessedWaiter(_ id: Int) {
        processedWaiters.remove(id)?.resume()
    }

    /// A delivery to the handler found nothing more pending: every chat event raised so far
    /// has been handed over and the handler returned. Handling a transport batch never
    /// suspends, so no batch is half raised now: every event handled so far is processed.
    /// Called once per delivery (about one per transport batch): an assignment, and a look at
    /// the waiters that is over at once when none wait (only idle checks do).
    func handlerCaughtUp() {
        processedEvents = handledEvents
        for waiter in processedWaiters.reached(processedEvents) { waiter.resume() }
    }
}
